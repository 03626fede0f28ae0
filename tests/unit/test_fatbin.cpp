// Reading fatbins as nvcc 13 writes them (tests/data/fatbin, made by make_fatbins.sh
// from kernels.cu there), choosing the PTX a device runs, and unpacking it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "annotations/inferred/fatbin.hpp"

namespace acs::inference {
namespace {

std::vector<std::byte> data_file(const std::string& name) {
  std::ifstream in(std::string(ACS_TEST_DATA_DIR) + "/fatbin/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::string text_file(const std::string& name) {
  const auto bytes = data_file(name);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<std::uint32_t> archs(const std::vector<const fatbin_entry*>& chosen) {
  std::vector<std::uint32_t> a;
  for (const fatbin_entry* e : chosen) a.push_back(e->arch);
  return a;
}

TEST(fatbin, entries_of_an_nvcc_13_fatbin) {
  const auto bytes = data_file("sm90.fatbin");
  const auto entries = read_fatbin(bytes.data());
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].kind, code_kind::elf);
  EXPECT_EQ((*entries)[0].arch, 90u);
  EXPECT_EQ((*entries)[0].packing, compression::none);
  EXPECT_EQ((*entries)[1].kind, code_kind::ptx);
  EXPECT_EQ((*entries)[1].arch, 90u);
  EXPECT_EQ((*entries)[1].packing, compression::zstd);
  const auto lz4 = data_file("sm90_lz4.fatbin");
  EXPECT_EQ(read_fatbin(lz4.data())->at(1).packing, compression::lz4);
  EXPECT_EQ(fatbin_bytes(bytes.data())->size(), bytes.size());
}

TEST(fatbin, compressed_ptx_unpacks_to_the_uncompressed_text) {
  // nvcc embeds PTX without comments and indentation, so the text is compared between
  // the default (zstd), the LZ4 (--compress-mode=speed) and the
  // --no-compress fatbin, and for what the kernels say.
  std::vector<std::string> texts;
  for (const char* file : {"sm90.fatbin", "sm90_lz4.fatbin", "sm90_uncompressed.fatbin"}) {
    const auto bytes = data_file(file);
    const auto entries = read_fatbin(bytes.data());
    ASSERT_TRUE(entries.has_value()) << file;
    const auto chosen = ptx_for_device(*entries, 90);
    ASSERT_EQ(chosen.size(), 1u) << file;
    const auto text = ptx_text(*chosen[0]);
    ASSERT_TRUE(text.has_value()) << file << ": are libzstd.so.1 and liblz4.so.1 installed?";
    texts.push_back(*text);
  }
  EXPECT_EQ(texts[0], texts[2]);
  EXPECT_EQ(texts[1], texts[2]);
  EXPECT_NE(texts[0].find(".visible .entry _Z4axpyPKfPffi("), std::string::npos);
  EXPECT_NE(texts[0].find("st.global.f32 [%rd7], %f4;"), std::string::npos);
  EXPECT_EQ(texts[0].find('\0'), std::string::npos);
}

TEST(fatbin, the_ptx_chosen_is_the_one_the_running_code_came_from) {
  const auto bytes = data_file("sm80_sm90.fatbin");
  const auto entries = read_fatbin(bytes.data());
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 4u);
  EXPECT_EQ(archs(ptx_for_device(*entries, 90)), std::vector<std::uint32_t>{90});   // sm_90 ELF runs
  EXPECT_EQ(archs(ptx_for_device(*entries, 89)), std::vector<std::uint32_t>{80});   // sm_80 ELF runs on 8.9
  EXPECT_EQ(archs(ptx_for_device(*entries, 100)), std::vector<std::uint32_t>{90});  // compute_90 is JIT-compiled
  EXPECT_TRUE(ptx_for_device(*entries, 75).empty());                                // nothing runs on 7.5
  const auto ptx_only = data_file("ptx80_only.fatbin");
  const auto jit = read_fatbin(ptx_only.data());
  ASSERT_TRUE(jit.has_value());
  EXPECT_EQ(archs(ptx_for_device(*jit, 90)), std::vector<std::uint32_t>{80});
}

TEST(fatbin, an_sm_90_elf_without_its_ptx_gives_no_ptx) {
  // Keep only the ELF entry: the older PTX would not describe the code that runs.
  auto entries = *read_fatbin(data_file("sm80_sm90.fatbin").data());
  std::erase_if(entries, [](const fatbin_entry& e) { return e.kind == code_kind::ptx && e.arch == 90; });
  EXPECT_TRUE(ptx_for_device(entries, 90).empty());
}

TEST(fatbin, through_nvccs_wrapper) {
  const auto bytes = data_file("sm90.fatbin");
  struct {
    std::int32_t magic = 0x466243B1;
    std::int32_t version = 1;
    const void* data;
    const void* filename = nullptr;
  } wrapper{.data = bytes.data()};
  const auto entries = read_fatbin(&wrapper);
  ASSERT_TRUE(entries.has_value());
  EXPECT_EQ(entries->size(), 2u);
  EXPECT_EQ(fatbin_bytes(&wrapper)->data(), bytes.data());
}

TEST(fatbin, malformed_images_are_refused) {
  auto bytes = data_file("sm90.fatbin");
  EXPECT_FALSE(read_fatbin(text_file("sm90.ptx").c_str()).has_value());
  EXPECT_FALSE(read_fatbin(nullptr).has_value());
  // An entry claiming more payload than the fatbin holds.
  auto too_long = bytes;
  const std::uint64_t huge = 1u << 30;
  std::memcpy(too_long.data() + 16 + 8, &huge, sizeof huge);
  EXPECT_FALSE(read_fatbin(too_long.data()).has_value());
  // A fatbin claiming more bytes than any real one.
  auto absurd = bytes;
  const std::uint64_t absurd_size = std::uint64_t{1} << 40;
  std::memcpy(absurd.data() + 8, &absurd_size, sizeof absurd_size);
  EXPECT_FALSE(read_fatbin(absurd.data()).has_value());
  // Corrupt compressed PTX: no text.
  auto corrupt = bytes;
  const auto entries = *read_fatbin(corrupt.data());
  const auto* ptx = ptx_for_device(entries, 90).at(0);
  std::memset(const_cast<std::byte*>(ptx->payload.data()) + 4, 0x5a, 16);
  EXPECT_FALSE(ptx_text(*ptx).has_value());
  auto corrupt_lz4 = data_file("sm90_lz4.fatbin");
  const auto lz4_entries = *read_fatbin(corrupt_lz4.data());
  const auto* lz4_ptx = ptx_for_device(lz4_entries, 90).at(0);
  std::memset(const_cast<std::byte*>(lz4_ptx->payload.data()), 0xff, 16);  // literal lengths past the end
  EXPECT_FALSE(ptx_text(*lz4_ptx).has_value());
}

TEST(fatbin, ptx_text_images) {
  const std::string ptx = text_file("sm90.ptx");
  EXPECT_TRUE(is_ptx_text(ptx.c_str()));
  EXPECT_FALSE(is_ptx_text(data_file("sm90.fatbin").data()));
  const char elf[] = "\x7f" "ELF\x02\x01\x01";
  EXPECT_FALSE(is_ptx_text(elf));
  EXPECT_FALSE(is_ptx_text("short text without a version"));
}

}  // namespace
}  // namespace acs::inference
