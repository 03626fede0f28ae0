#pragma once
// CUPTI activity records -> the tracer's own records. Uses CUPTI's headers
// only (no library), so the unit tests feed it synthetic records.
#include <cupti.h>

#include "src/trace/collector.hpp"

namespace acs::trace {

// The external correlation kind acs pushes. Not CUSTOM0/CUSTOM1: PyTorch's
// profiler (Kineto) uses those two; were it to start after acs, ids of the
// same kind would nest and CUPTI reports only one of a kind per record.
inline constexpr CUpti_ExternalCorrelationKind acs_correlation_kind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

/// @brief Adds `record` to `batch` when it is a kernel, memcpy, memset or one of
/// acs's external correlations; returns whether it was kept. Records without
/// valid timestamps are counted as incomplete instead.
bool convert(const CUpti_Activity& record, record_batch& batch);

/// @brief "memcpy HtoD" ... for a CUpti_ActivityMemcpyKind value.
const char* memcpy_name(unsigned copy_kind) noexcept;

}  // namespace acs::trace
