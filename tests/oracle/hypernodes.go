package main

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/sets"

	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
	"volcano.sh/volcano/pkg/scheduler/api"
	"volcano.sh/volcano/pkg/scheduler/cache"
)

// checkHyperNodes refuses the member selectors the oracle does not resolve
// (regexMatch, labelMatch): it builds the tree from exactMatch members, the
// way Volcano's unit tests give it to the cache.
func checkHyperNodes(hns []*topologyv1alpha1.HyperNode) error {
	for _, hn := range hns {
		for _, m := range hn.Spec.Members {
			if m.Selector.ExactMatch == nil {
				return unsupported("HyperNode %s: only exactMatch member selectors are expressed", hn.Name)
			}
		}
	}
	return nil
}

// loadHyperNodes gives the cache the HyperNode tree: each HyperNode's
// children and parent, the HyperNodes of each tier, and the real nodes
// below each HyperNode.
func (w *world) loadHyperNodes(sc *cache.SchedulerCache) {
	infos := map[string]*api.HyperNodeInfo{}
	byTier := map[int]sets.Set[string]{}
	for _, hn := range w.hyperNodes {
		infos[hn.Name] = api.NewHyperNodeInfo(hn.DeepCopy())
		if byTier[hn.Spec.Tier] == nil {
			byTier[hn.Spec.Tier] = sets.New[string]()
		}
		byTier[hn.Spec.Tier].Insert(hn.Name)
	}
	for _, hn := range w.hyperNodes {
		for _, m := range hn.Spec.Members {
			if m.Type != topologyv1alpha1.MemberTypeHyperNode {
				continue
			}
			child := m.Selector.ExactMatch.Name
			infos[hn.Name].Children.Insert(child)
			if c, ok := infos[child]; ok {
				c.Parent = hn.Name
			}
		}
	}
	realNodes := map[string]sets.Set[string]{}
	var below func(name string, seen sets.Set[string]) sets.Set[string]
	below = func(name string, seen sets.Set[string]) sets.Set[string] {
		out := sets.New[string]()
		info, ok := infos[name]
		if !ok || seen.Has(name) {
			return out
		}
		seen.Insert(name)
		for _, m := range info.HyperNode.Spec.Members {
			if m.Type == topologyv1alpha1.MemberTypeNode {
				out.Insert(m.Selector.ExactMatch.Name)
			} else {
				out = out.Union(below(m.Selector.ExactMatch.Name, seen))
			}
		}
		return out
	}
	for name := range infos {
		realNodes[name] = below(name, sets.New[string]())
	}
	ready := new(atomic.Bool)
	ready.Store(true)
	sc.HyperNodesInfo = api.NewHyperNodesInfoWithCache(infos, byTier, realNodes, ready)
}
