# The charting library of the simulation report, fetched from the npm registry
# at build time (never vendored, never fetched at run time); see
# cmake/chart_asset.cmake. -DBASALT_CHART_OFFLINE=ON builds without it (the
# report then says the charts library is missing).
option(BASALT_CHART_OFFLINE "Build the simulation report without fetching its charts library" OFF)
set(BASALT_CHART_PACKAGE "chart.js" CACHE STRING "npm package of the report's charts library")
set(BASALT_CHART_VERSION "4.4.1" CACHE STRING "Exact version of the charts library")
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/generated/chart_asset.cc
  COMMAND ${CMAKE_COMMAND} -DOUT=${CMAKE_BINARY_DIR}/generated/chart_asset.cc
          -DWORK=${CMAKE_BINARY_DIR}/npm-chart -DPKG=${BASALT_CHART_PACKAGE} -DVERSION=${BASALT_CHART_VERSION}
          -DFILE=dist/chart.umd.js -DOFFLINE=${BASALT_CHART_OFFLINE}
          -P ${PROJECT_SOURCE_DIR}/cmake/chart_asset.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/chart_asset.cmake
  COMMENT "Fetching ${BASALT_CHART_PACKAGE}@${BASALT_CHART_VERSION} from npm for the simulation report"
  VERBATIM)
