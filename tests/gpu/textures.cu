// Texture and surface objects (docs/design.md rule 9) [texture_object]. A kernel that reads a
// texture or reads or writes a surface reaches memory through an object handle, which points
// into no allocation: acs must order it against every kernel around it.
//
//   textures linear [--reps=4] [--min-us=500]
//       a texture over linear memory L: a slow kernel writes L, a kernel reads it through the
//       texture (after a wait of its own), a kernel overwrites L
//   textures array [--reps=4] [--min-us=500]
//       a CUDA array behind a surface and a texture: a slow surface writer, a texture reader
//       (after a wait), a fast surface writer, a surface reader
//
// Every rep writes what it read to buffers of its own; stdout holds their digests, compared bit
// for bit with the native run. Textures use point filtering: reads return texels exactly.
#include <string>
#include <vector>

#include "common.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr int grid = 8, block = 256;
constexpr int width = 256, height = 64, texels = width * height;

__device__ float value_of(int i, uint32_t salt) {
  return static_cast<float>(acs_test::mix32(static_cast<uint32_t>(i) * 0x9e3779b9u + salt) >> 8);
}

// ---- linear memory

__global__ void fill_linear(float* l, uint32_t salt, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < texels; i += gridDim.x * blockDim.x) l[i] = value_of(i, salt);
}

// Waits, then reads every texel of a texture over linear memory.
__global__ void read_linear(cudaTextureObject_t tex, float* out, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < texels; i += gridDim.x * blockDim.x)
    out[i] = tex1Dfetch<float>(tex, i);
}

// ---- CUDA arrays

// Also writes what it stores to `echo`: without it the kernel would write no allocation at all,
// and inference would order it against everything anyway, texture or not.
__global__ void fill_surface(cudaSurfaceObject_t surf, float* echo, uint32_t salt, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < texels; i += gridDim.x * blockDim.x) {
    const float v = value_of(i, salt);
    surf2Dwrite(v, surf, (i % width) * static_cast<int>(sizeof(float)), i / width);
    echo[i] = v;
  }
}

__global__ void read_array_texture(cudaTextureObject_t tex, float* out, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < texels; i += gridDim.x * blockDim.x)
    out[i] = tex2D<float>(tex, static_cast<float>(i % width) + 0.5f, static_cast<float>(i / width) + 0.5f);
}

__global__ void read_surface(cudaSurfaceObject_t surf, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < texels; i += gridDim.x * blockDim.x)
    out[i] = surf2Dread<float>(surf, (i % width) * static_cast<int>(sizeof(float)), i / width);
}

float* device_floats() {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, texels * sizeof(float)));
  ACS_CHECK(cudaMemset(p, 0, texels * sizeof(float)));
  return static_cast<float*>(p);
}

cudaTextureDesc point_sampling() {
  cudaTextureDesc d{};
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
  d.filterMode = cudaFilterModePoint;
  d.readMode = cudaReadModeElementType;
  d.normalizedCoords = 0;
  return d;
}

void print_floats(const std::string& name, const float* dev) {
  static_assert(sizeof(float) == sizeof(uint32_t));
  acs_test::print_device_words(name.c_str(), dev, texels);
}

void linear(int reps, stamp_t min_ns, cudaStream_t s) {
  float* l = device_floats();
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = l;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = texels * sizeof(float);
  const cudaTextureDesc td = point_sampling();
  cudaTextureObject_t tex = 0;
  ACS_CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  std::vector<float*> seen;
  for (int r = 0; r < reps; ++r) seen.push_back(device_floats());
  ACS_CHECK(cudaDeviceSynchronize());
  std::printf("textures linear reps=%d texels=%d\n", reps, texels);
  for (int r = 0; r < reps; ++r) {
    const auto salt = 1000u * static_cast<uint32_t>(r + 1);
    fill_linear<<<grid, block, 0, s>>>(l, salt, min_ns);
    read_linear<<<grid, block, 0, s>>>(tex, seen[r], min_ns);  // must see this fill, not the next
    fill_linear<<<grid, block, 0, s>>>(l, salt + 1, 0);
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) print_floats("linear" + std::to_string(r), seen[r]);
  ACS_CHECK(cudaDestroyTextureObject(tex));
}

void array(int reps, stamp_t min_ns, cudaStream_t s) {
  const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  ACS_CHECK(cudaMallocArray(&a, &fd, width, height, cudaArraySurfaceLoadStore));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  const cudaTextureDesc td = point_sampling();
  cudaTextureObject_t tex = 0;
  cudaSurfaceObject_t surf = 0;
  ACS_CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  ACS_CHECK(cudaCreateSurfaceObject(&surf, &res));
  float* echo = device_floats();
  std::vector<float*> through_texture, through_surface;
  for (int r = 0; r < reps; ++r) {
    through_texture.push_back(device_floats());
    through_surface.push_back(device_floats());
  }
  fill_surface<<<grid, block, 0, s>>>(surf, echo, 1u, 0);
  ACS_CHECK(cudaDeviceSynchronize());
  std::printf("textures array reps=%d texels=%dx%d\n", reps, width, height);
  for (int r = 0; r < reps; ++r) {
    const auto salt = 1000u * static_cast<uint32_t>(r + 1);
    fill_surface<<<grid, block, 0, s>>>(surf, echo, salt, min_ns);
    read_array_texture<<<grid, block, 0, s>>>(tex, through_texture[r], min_ns);  // this fill
    fill_surface<<<grid, block, 0, s>>>(surf, echo, salt + 1, 0);
    read_surface<<<grid, block, 0, s>>>(surf, through_surface[r]);  // the fill just before
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) {
    print_floats("texture" + std::to_string(r), through_texture[r]);
    print_floats("surface" + std::to_string(r), through_surface[r]);
  }
  print_floats("echo", echo);
  ACS_CHECK(cudaDestroySurfaceObject(surf));
  ACS_CHECK(cudaDestroyTextureObject(tex));
  ACS_CHECK(cudaFreeArray(a));
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const int reps = static_cast<int>(acs_test::arg_long(argc, argv, "--reps", 4));
  const auto min_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--min-us", 500)) * 1000;
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (scenario == "linear") {
    linear(reps, min_ns, s);
  } else if (scenario == "array") {
    array(reps, min_ns, s);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
