#include "src/trace/cupti_records.hpp"

namespace acs::trace {

namespace {

bool timed(std::uint64_t start, std::uint64_t end) { return start != 0 && end > start; }

// A memcpy or memset record (their CUPTI structs share these fields).
template <class Record>
bool add_copy(const Record& c, copy_kind kind, const char* name, record_batch& batch) {
  if (!timed(c.start, c.end)) {
    ++batch.incomplete;
    return false;
  }
  record_batch::copy out;
  out.record = {c.start, c.end, c.bytes, c.deviceId, c.streamId, c.correlationId, 0, kind};
  out.name = name;
  batch.copies.push_back(out);
  return true;
}

}  // namespace

const char* memcpy_name(unsigned copy_kind) noexcept {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "memcpy HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "memcpy AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "memcpy AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "memcpy AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "memcpy DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "memcpy PtoP";
    default:
      return "memcpy";
  }
}

bool convert(const CUpti_Activity& record, record_batch& batch) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
      if (!timed(k.start, k.end)) {
        ++batch.incomplete;
        return false;
      }
      record_batch::kernel out;
      out.record.start_ns = k.start;
      out.record.end_ns = k.end;
      out.record.device = k.deviceId;
      out.record.stream = k.streamId;
      out.record.correlation = k.correlationId;
      out.name = k.name;
      batch.kernels.push_back(out);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& c = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
      return add_copy(c, copy_kind::memcpy, memcpy_name(c.copyKind), batch);
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return add_copy(reinterpret_cast<const CUpti_ActivityMemset4&>(record), copy_kind::memset, "memset", batch);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
      if (e.externalKind != acs_correlation_kind) return false;
      batch.correlations.push_back({e.correlationId, e.externalId});
      return true;
    }
    default:
      return false;  // API records and anything else: only there to carry correlations
  }
}

}  // namespace acs::trace
