// The oracle's module. scripts/oracle builds it from a copy outside the tree
// whose go.mod adds Volcano v1.15.1's requirements and replace lines pointing
// at the extracted source (docs/oracle.md); this file names the module only.
module basalt.dev/tests/oracle

go 1.25.0
