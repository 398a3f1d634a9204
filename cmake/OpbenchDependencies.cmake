# Every dependency through find_package. scripts/setup.sh installs them on Debian/Ubuntu; on the GPU
# node they come from the .devdeps bundle (CMAKE_PREFIX_PATH).
find_package(CUDAToolkit REQUIRED)
find_package(benchmark REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
