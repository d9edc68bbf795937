// Command oracle runs Volcano v1.15.1's own scheduler (its cache, session,
// plugins and actions, linked from the extracted source) on the manifests
// `basalt schedule` reads, cycle after cycle, and prints the decisions in the
// JSON of `basalt schedule` (docs/schedule.md). It is the reference of the
// differential test (docs/oracle.md).
//
//	oracle [--conf FILE] --cluster PATH [--cluster PATH ...] [--cycles N]
//
// Exit codes: 0 decisions printed, 2 bad input, 4 input the oracle cannot
// express (the message says what), 1 anything else.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"volcano.sh/volcano/pkg/scheduler"
	_ "volcano.sh/volcano/pkg/scheduler/actions"
	"volcano.sh/volcano/pkg/scheduler/conf"
	"volcano.sh/volcano/pkg/scheduler/framework"
	"volcano.sh/volcano/pkg/scheduler/metrics"
	_ "volcano.sh/volcano/pkg/scheduler/plugins"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type schedulerConf struct {
	actions        []framework.Action
	tiers          []conf.Tier
	configurations []conf.Configuration
}

func loadConf(path string) (*schedulerConf, error) {
	text := scheduler.DefaultSchedulerConf
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(string(data)) == "" {
			return nil, fmt.Errorf("%s: empty scheduler configuration", path)
		}
		text = string(data)
	}
	actions, tiers, configurations, _, err := scheduler.UnmarshalSchedulerConf(text)
	if err != nil && strings.Contains(err.Error(), "failed to find Action") {
		return nil, unsupported("%v (not an action of Volcano v1.15.1)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, a := range actions {
		if a.Name() == "shuffle" {
			return nil, unsupported("the shuffle action picks victims through the rescheduling plugin's wall clock and metrics")
		}
	}
	for _, tier := range tiers {
		for _, p := range tier.Plugins {
			if _, ok := framework.GetPluginBuilder(p.Name); !ok {
				return nil, unsupported("plugin %s does not exist in Volcano v1.15.1", p.Name)
			}
			if p.Name == "deviceshare" {
				// Its GPU cards never bind in the oracle's fake cluster yet
				// (docs/oracle.md): left out rather than compared wrongly.
				return nil, unsupported("the deviceshare plugin is not expressed by the oracle yet")
			}
		}
	}
	return &schedulerConf{actions, withTieBreakTier(tiers), configurations}, nil
}

type finalPod struct {
	Pod   string `json:"pod"`
	Phase string `json:"phase"`
	Node  string `json:"node,omitempty"`
}

type output struct {
	// Truncated says why the oracle stopped before --cycles (a world step
	// it cannot follow); the cycles given are comparable, final is not.
	Truncated string     `json:"truncated,omitempty"`
	Cycles    []cycleOut `json:"cycles"`
	Final     struct {
		Pods      []finalPod   `json:"pods"`
		PodGroups []groupPhase `json:"podgroups"`
	} `json:"final"`
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("oracle", flag.ContinueOnError)
	confPath := fs.String("conf", "", "Volcano scheduler configuration")
	cycles := fs.Int("cycles", 1, "sessions to run")
	var clusters multiFlag
	fs.Var(&clusters, "cluster", "manifest file or folder (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(clusters) == 0 || *cycles < 1 {
		return fmt.Errorf("usage: oracle [--conf FILE] --cluster PATH... [--cycles N>=1]")
	}
	sched, err := loadConf(*confPath)
	if err != nil {
		return err
	}
	m, err := decodeFiles(clusters)
	if err != nil {
		return err
	}
	if err := checkHyperNodes(m.hyperNodes); err != nil {
		return err
	}
	w, err := newWorld(m)
	if err != nil {
		return err
	}
	registerTieBreaks()
	var out output
	for c := 1; c <= *cycles; c++ {
		cycle := w.runCycle(c, sched)
		out.Cycles = append(out.Cycles, cycle)
		if why := w.unfollowable(cycle); why != "" && c < *cycles {
			out.Truncated = fmt.Sprintf("after cycle %d: %s", c, why)
			break
		}
		w.step()
	}
	for _, k := range sortedKeys(w.pods) {
		p := w.pods[k]
		out.Final.Pods = append(out.Final.Pods, finalPod{Pod: k, Phase: string(p.Status.Phase), Node: p.Spec.NodeName})
	}
	for _, k := range sortedKeys(w.podGroups) {
		out.Final.PodGroups = append(out.Final.PodGroups, groupPhase{Name: k, Phase: string(w.podGroups[k].Status.Phase)})
	}
	if out.Final.Pods == nil {
		out.Final.Pods = []finalPod{}
	}
	sort.Slice(out.Final.Pods, func(i, j int) bool { return out.Final.Pods[i].Pod < out.Final.Pods[j].Pod })
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

var _ = v1.PodRunning

func main() {
	// Volcano logs through klog; the oracle's stderr is for its own errors.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("logtostderr", "false")
	_ = klogFlags.Set("alsologtostderr", "false")
	_ = klogFlags.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	// ORACLE_KLOG_V=5 shows Volcano's own log on stderr (why it decided).
	if v := os.Getenv("ORACLE_KLOG_V"); v != "" {
		_ = klogFlags.Set("v", v)
		klog.SetOutput(os.Stderr)
	}
	// As Volcano's unit tests do: the kube-scheduler metrics its predicates touch.
	metrics.InitKubeSchedulerRelatedMetrics()
	err := run(os.Args[1:], os.Stdout)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "oracle:", err)
	var u *unsupportedError
	if errors.As(err, &u) {
		os.Exit(4)
	}
	os.Exit(2)
}
