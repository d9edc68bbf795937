// Command etcd runs the etcd server from the pinned go.etcd.io/etcd/server/v3
// module, so the tests do not depend on whichever etcd a distribution ships.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
