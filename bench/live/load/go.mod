// The bench's load generator: creates nodes, PodGroups and pods and posts
// bindings at high concurrency against a kube-apiserver. Standard library
// only, so it builds in seconds and downloads nothing.
module basalt.dev/bench/live/load

go 1.26.0
