// Command load creates the objects of a bench/live workload against a
// kube-apiserver as fast as the server takes them, with many requests in
// flight over one HTTP/2 connection, and prints one JSON line of timings:
//
//	load -server URL -ca F -cert F -key F nodes     -count N [-prefix n] [-cpu 32] [-memory 256Gi] [-max-pods 110]
//	load ... podgroups -ns NS -count G -min-member 8 [-queue default]
//	load ... pods      -ns NS -count N [-scheduler NAME] [-group-size 8] [-bind-nodes M]
//	load ... bind      -ns NS -count N -nodes M
//
// pods with -group-size K annotates pod i with the group g<i/K> (the
// PodGroups `podgroups` made); with -bind-nodes M each pod is created already
// bound (spec.nodeName n<i%M>). bind posts pods/NAME/binding for pods
// p0..p<N-1> to nodes n<i%M>: the ceiling a scheduler's binds cannot beat.
//
// Output: {"op":..,"count":..,"ok":..,"errors":..,"first_ns":..,"last_ns":..,"rate":..}
// with first_ns the wall clock (Unix ns) before the first request left and
// last_ns after the last reply came. 409 AlreadyExists counts as done (a
// rerun is idempotent); 429 and 5xx are retried after a short pause.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

type client struct {
	server string
	http   *http.Client
}

func newClient(server, caFile, certFile, keyFile string) (*client, error) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no PEM certificate", caFile)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
	}
	return &client{server: server, http: &http.Client{Transport: transport, Timeout: 60 * time.Second}}, nil
}

// post sends body to path until the server takes it (201/200, or 409 when
// conflictIsDone) or refuses it for good; it returns the last status.
func (c *client) post(path string, body []byte, conflictIsDone bool) (int, string) {
	var status int
	var text string
	for attempt := 0; attempt < 20; attempt++ {
		resp, err := c.http.Post(c.server+path, "application/json", bytes.NewReader(body))
		if err != nil {
			status, text = 0, err.Error()
			time.Sleep(200 * time.Millisecond)
			continue
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status, text = resp.StatusCode, string(reply)
		switch {
		case status == 200 || status == 201 || (status == 409 && conflictIsDone):
			return status, ""
		case status == 429 || status >= 500:
			time.Sleep(100 * time.Millisecond)
		default:
			return status, text
		}
	}
	return status, text
}

type request struct {
	path string
	body []byte
	then *request // sent once this one succeeded (create-bind: the pod's binding)
}

type result struct {
	Op      string  `json:"op"`
	Count   int     `json:"count"`
	Ok      int64   `json:"ok"`
	Errors  int64   `json:"errors"`
	FirstNs int64   `json:"first_ns"`
	LastNs  int64   `json:"last_ns"`
	Rate    float64 `json:"rate"`
	Sample  string  `json:"sample_error,omitempty"`
}

// run sends count requests made by build(i) with workers in flight.
func (c *client) run(op string, count, workers int, conflictIsDone bool, build func(i int) request) result {
	var ok, failed atomic.Int64
	var sample atomic.Value
	next := make(chan int, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var status int
				text := ""
				req := build(i)
				for r := &req; r != nil && text == ""; r = r.then {
					status, text = c.post(r.path, r.body, conflictIsDone)
					if text != "" {
						sample.CompareAndSwap(nil, fmt.Sprintf("%s: %d %s", r.path, status, text))
					}
				}
				if text == "" {
					ok.Add(1)
					continue
				}
				failed.Add(1)
			}
		}()
	}
	for i := 0; i < count; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	end := time.Now()
	r := result{Op: op, Count: count, Ok: ok.Load(), Errors: failed.Load(),
		FirstNs: start.UnixNano(), LastNs: end.UnixNano()}
	if s := end.Sub(start).Seconds(); s > 0 {
		r.Rate = float64(r.Ok) / s
	}
	if s, isString := sample.Load().(string); isString {
		r.Sample = s
	}
	return r
}

func binding(ns, pod, node string) request {
	return request{path: fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/binding", ns, pod), body: mustJSON(object{
		"apiVersion": "v1", "kind": "Binding",
		"metadata": object{"name": pod, "namespace": ns},
		"target":   object{"kind": "Node", "name": node},
	})}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type object = map[string]any

func node(name, cpu, memory, maxPods string) object {
	capacity := object{"cpu": cpu, "memory": memory, "pods": maxPods}
	return object{
		"apiVersion": "v1", "kind": "Node",
		"metadata": object{
			"name":        name,
			"labels":      object{"type": "kwok", "kubernetes.io/hostname": name},
			"annotations": object{"kwok.x-k8s.io/node": "fake"},
		},
		"status": object{"capacity": capacity, "allocatable": capacity},
	}
}

type podOptions struct {
	ns, prefix, scheduler, cpu, memory, nodePrefix string
	groupSize, bindNodes                           int
}

func pod(i int, o podOptions) object {
	name := fmt.Sprintf("%s%d", o.prefix, i)
	annotations := object{}
	if o.groupSize > 0 {
		annotations["scheduling.k8s.io/group-name"] = fmt.Sprintf("g%d", i/o.groupSize)
	}
	spec := object{
		"schedulerName":                 o.scheduler,
		"automountServiceAccountToken":  false,
		"terminationGracePeriodSeconds": 0,
		"containers": []object{{
			"name": "c", "image": "registry.k8s.io/pause:3.10",
			"resources": object{"requests": object{"cpu": o.cpu, "memory": o.memory}},
		}},
	}
	if o.bindNodes > 0 {
		spec["nodeName"] = fmt.Sprintf("%s%d", o.nodePrefix, i%o.bindNodes)
	}
	return object{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": object{"name": name, "namespace": o.ns, "annotations": annotations},
		"spec":     spec,
	}
}

func main() {
	server := flag.String("server", "", "API server URL")
	ca := flag.String("ca", "", "CA certificate file")
	cert := flag.String("cert", "", "client certificate file")
	key := flag.String("key", "", "client key file")
	workers := flag.Int("workers", 64, "requests in flight")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: load -server URL -ca F -cert F -key F nodes|podgroups|pods|bind|create-bind [flags]")
		os.Exit(2)
	}
	c, err := newClient(*server, *ca, *cert, *key)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	op, args := flag.Arg(0), flag.Args()[1:]
	sub := flag.NewFlagSet(op, flag.ExitOnError)
	count := sub.Int("count", 0, "objects to create or pods to bind")
	ns := sub.String("ns", "bench", "namespace")
	prefix := sub.String("prefix", "", "name prefix (default n for nodes, p for pods)")
	nodePrefix := sub.String("node-prefix", "n", "prefix of node names")
	cpu := sub.String("cpu", "", "cpu of a node (32) or request of a pod (100m)")
	memory := sub.String("memory", "", "memory of a node (256Gi) or request of a pod (128Mi)")
	maxPods := sub.String("max-pods", "110", "pods a node takes")
	scheduler := sub.String("scheduler", "volcano", "spec.schedulerName of pods")
	groupSize := sub.Int("group-size", 0, "pods per PodGroup (0: no group annotation)")
	bindNodes := sub.Int("bind-nodes", 0, "create pods bound round-robin to this many nodes")
	nodes := sub.Int("nodes", 0, "bind: nodes to bind to, round-robin")
	minMember := sub.Int("min-member", 8, "podgroups: minMember")
	queue := sub.String("queue", "default", "podgroups: queue")
	sub.Parse(args)
	or := func(s *string, def string) string {
		if *s == "" {
			return def
		}
		return *s
	}
	var r result
	switch op {
	case "nodes":
		p, nc, nm := or(prefix, "n"), or(cpu, "32"), or(memory, "256Gi")
		r = c.run(op, *count, *workers, true, func(i int) request {
			return request{path: "/api/v1/nodes", body: mustJSON(node(fmt.Sprintf("%s%d", p, i), nc, nm, *maxPods))}
		})
	case "podgroups":
		path := fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", *ns)
		r = c.run(op, *count, *workers, true, func(i int) request {
			return request{path: path, body: mustJSON(object{
				"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
				"metadata": object{"name": fmt.Sprintf("g%d", i), "namespace": *ns},
				"spec":     object{"minMember": *minMember, "queue": *queue},
			})}
		})
	case "pods":
		o := podOptions{ns: *ns, prefix: or(prefix, "p"), scheduler: *scheduler, cpu: or(cpu, "100m"),
			memory: or(memory, "128Mi"), nodePrefix: *nodePrefix, groupSize: *groupSize, bindNodes: *bindNodes}
		path := fmt.Sprintf("/api/v1/namespaces/%s/pods", *ns)
		r = c.run(op, *count, *workers, true, func(i int) request {
			return request{path: path, body: mustJSON(pod(i, o))}
		})
	case "bind":
		p := or(prefix, "p")
		r = c.run(op, *count, *workers, false, func(i int) request {
			return binding(*ns, fmt.Sprintf("%s%d", p, i), fmt.Sprintf("%s%d", *nodePrefix, i%*nodes))
		})
	case "create-bind":
		// The ideal scheduler: each pod bound the moment its create returns,
		// no watch and no decision; what the API server takes for the pair.
		o := podOptions{ns: *ns, prefix: or(prefix, "p"), scheduler: *scheduler, cpu: or(cpu, "100m"),
			memory: or(memory, "128Mi"), nodePrefix: *nodePrefix}
		path := fmt.Sprintf("/api/v1/namespaces/%s/pods", *ns)
		r = c.run(op, *count, *workers, false, func(i int) request {
			bind := binding(*ns, fmt.Sprintf("%s%d", o.prefix, i), fmt.Sprintf("%s%d", *nodePrefix, i%*nodes))
			return request{path: path, body: mustJSON(pod(i, o)), then: &bind}
		})
	default:
		fmt.Fprintf(os.Stderr, "load: unknown operation %q (nodes, podgroups, pods, bind, create-bind)\n", op)
		os.Exit(2)
	}
	os.Stdout.Write(append(mustJSON(r), '\n'))
	if r.Errors > 0 {
		fmt.Fprintf(os.Stderr, "load: %s: %d of %d failed, e.g. %s\n", op, r.Errors, r.Count, r.Sample)
		os.Exit(1)
	}
}
