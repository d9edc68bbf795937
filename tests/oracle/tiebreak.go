package main

import (
	"sort"

	"volcano.sh/volcano/pkg/scheduler/api"
	"volcano.sh/volcano/pkg/scheduler/conf"
	"volcano.sh/volcano/pkg/scheduler/framework"
)

// nameRankPlugin is the oracle's only scheduling code. Volcano picks at
// random among nodes of equal score (util.SelectBestNodeAndScore); basalt
// takes the first in name order. The plugin adds to every node a score far
// below any real score difference that falls with the node's name rank, so
// Volcano's best node is unique and is the one basalt would take.
const nameRankPluginName = "oracle-name-rank"

// nameRankSpan bounds the whole epsilon: real node-order scores differ by
// at least about 1e-3 (they are floats of plugin scores times weights).
const nameRankSpan = 1e-6

type nameRankPlugin struct{}

func (nameRankPlugin) Name() string { return nameRankPluginName }

func (nameRankPlugin) OnSessionOpen(ssn *framework.Session) {
	names := make([]string, 0, len(ssn.Nodes))
	for name := range ssn.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	bonus := make(map[string]float64, len(names))
	for i, name := range names {
		bonus[name] = nameRankSpan * float64(len(names)-i) / float64(len(names)+1)
	}
	ssn.AddNodeOrderFn(nameRankPluginName, func(_ *api.TaskInfo, node *api.NodeInfo) (float64, error) {
		return bonus[node.Name], nil
	})
	// The same for HyperNodes: Volcano takes the first best-scored HyperNode
	// in map order (allocate.go selectBestHyperNodeForJob,
	// util.SelectBestHyperNodeAndScore); basalt the first by name.
	hnNames := make([]string, 0, len(ssn.HyperNodes))
	for name := range ssn.HyperNodes {
		hnNames = append(hnNames, name)
	}
	sort.Strings(hnNames)
	hnBonus := make(map[string]float64, len(hnNames))
	for i, name := range hnNames {
		hnBonus[name] = nameRankSpan * float64(len(hnNames)-i) / float64(len(hnNames)+1)
	}
	ssn.AddHyperNodeOrderFn(nameRankPluginName, func(_ *api.SubJobInfo, hyperNodes map[string][]*api.NodeInfo) (map[string]float64, error) {
		out := make(map[string]float64, len(hyperNodes))
		for name := range hyperNodes {
			out[name] = hnBonus[name]
		}
		return out, nil
	})
}

func (nameRankPlugin) OnSessionClose(*framework.Session) {}

func registerTieBreaks() {
	framework.RegisterPluginBuilder(nameRankPluginName, func(framework.Arguments) framework.Plugin {
		return nameRankPlugin{}
	})
}

// withTieBreakTier appends a last tier holding only the name-rank plugin:
// node-order scores add up over every tier, and a plugin that registers no
// other function takes no part in any other decision.
func withTieBreakTier(tiers []conf.Tier) []conf.Tier {
	enabled := true
	return append(tiers, conf.Tier{Plugins: []conf.PluginOption{{
		Name: nameRankPluginName, EnabledNodeOrder: &enabled, EnabledHyperNodeOrder: &enabled,
	}}})
}
