#include <gtest/gtest.h>

#include "annotations/inferred/kernel_signature.hpp"

namespace acs::inference {
namespace {

using k = param_kind;

TEST(kernel_signature, const_and_mutable_pointers_and_values) {
  // void kernel(float const*, float*, int)
  EXPECT_EQ(kernel_parameters("_Z6kernelPKfPfi"), (std::vector<k>{k::const_pointer, k::pointer, k::value}));
}

TEST(kernel_signature, template_kernels_with_substitutions) {
  // void axpy<float>(float const*, float*, int)
  EXPECT_EQ(kernel_parameters("_Z4axpyIfEvPKT_PS0_i"), (std::vector<k>{k::const_pointer, k::pointer, k::value}));
}

TEST(kernel_signature, pointers_to_pointers_are_indirect) {
  // foo(float**, float* const*), k(float const* const*)
  EXPECT_EQ(kernel_parameters("_Z3fooPPfPKS_"), (std::vector<k>{k::indirect, k::indirect}));
  EXPECT_EQ(kernel_parameters("_Z1kPKPKf"), (std::vector<k>{k::indirect}));
}

TEST(kernel_signature, struct_values_and_empty_lists) {
  EXPECT_EQ(kernel_parameters("_Z3bazN4math4vec3EPKd"), (std::vector<k>{k::value, k::const_pointer}));
  EXPECT_EQ(kernel_parameters("_Z3barv"), std::vector<k>{});
}

TEST(kernel_signature, unmangled_or_broken_names_are_unknown) {
  EXPECT_FALSE(kernel_parameters("saxpy").has_value());
  EXPECT_FALSE(kernel_parameters("_Z3fooPK").has_value());
  EXPECT_FALSE(kernel_parameters(nullptr).has_value());
}

TEST(kernel_signature, demangled_lists_with_templates_and_function_pointers) {
  // A function pointer reaches code, not data: a plain value.
  EXPECT_EQ(classify_parameters("thrust::pair<int, float> const*, float (*)(int), int*"),
            (std::vector<k>{k::const_pointer, k::value, k::pointer}));
  EXPECT_EQ(classify_parameters("const double*, double* __restrict"),
            (std::vector<k>{k::const_pointer, k::pointer}));
  EXPECT_EQ(parameter_list("void f<(anonymous namespace)::op>(int, float*)"), "int, float*");
}

}  // namespace
}  // namespace acs::inference
