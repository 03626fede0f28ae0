# The release, the same as CMake's project(acs VERSION ...) in the top-level
# CMakeLists.txt (the test package.python_version checks that they agree).
__version__ = "0.1.0"
