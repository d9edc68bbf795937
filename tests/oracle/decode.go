package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	batch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcv1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
)

// unsupportedError marks an input the oracle cannot express (exit code 4);
// the differential driver skips such scenarios and says why.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }

func unsupported(format string, args ...any) error {
	return &unsupportedError{fmt.Sprintf(format, args...)}
}

// manifests holds every object of the --cluster inputs, typed.
type manifests struct {
	nodes      []*v1.Node
	pods       []*v1.Pod
	namespaces []*v1.Namespace
	pcs        []*schedulingv1.PriorityClass
	queues     []*vcv1beta1.Queue
	podGroups  []*vcv1beta1.PodGroup
	hyperNodes []*topologyv1alpha1.HyperNode
	jobs       []*batch.Job
}

// inputFiles expands files and folders the way `basalt schedule --cluster`
// does: every *.yaml, *.yml, *.json below a folder, in path order.
func inputFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(path))
			if !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func decodeFiles(paths []string) (*manifests, error) {
	files, err := inputFiles(paths)
	if err != nil {
		return nil, err
	}
	m := &manifests{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			js, err := yaml.YAMLToJSON(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			if len(bytes.TrimSpace(js)) == 0 || string(bytes.TrimSpace(js)) == "null" {
				continue
			}
			if err := m.add(f, js); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

type typeHeader struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func (m *manifests) add(file string, js []byte) error {
	var h typeHeader
	if err := json.Unmarshal(js, &h); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	into := func(obj any) error {
		if err := json.Unmarshal(js, obj); err != nil {
			return fmt.Errorf("%s: %s: %v", file, h.Kind, err)
		}
		return nil
	}
	switch h.Kind {
	case "List":
		for _, item := range h.Items {
			if err := m.add(file, item); err != nil {
				return err
			}
		}
		return nil
	case "Node":
		o := &v1.Node{}
		m.nodes = append(m.nodes, o)
		return into(o)
	case "Pod":
		o := &v1.Pod{}
		m.pods = append(m.pods, o)
		return into(o)
	case "Namespace":
		o := &v1.Namespace{}
		m.namespaces = append(m.namespaces, o)
		return into(o)
	case "PriorityClass":
		o := &schedulingv1.PriorityClass{}
		m.pcs = append(m.pcs, o)
		return into(o)
	case "Queue":
		o := &vcv1beta1.Queue{}
		m.queues = append(m.queues, o)
		return into(o)
	case "PodGroup":
		o := &vcv1beta1.PodGroup{}
		m.podGroups = append(m.podGroups, o)
		return into(o)
	case "HyperNode":
		o := &topologyv1alpha1.HyperNode{}
		m.hyperNodes = append(m.hyperNodes, o)
		return into(o)
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "CronJob":
		return unsupported("%s: kind %s (owner objects) is not expressed by the oracle", file, h.Kind)
	case "Job":
		if strings.HasPrefix(h.APIVersion, "batch.volcano.sh/") {
			o := &batch.Job{}
			if err := into(o); err != nil {
				return err
			}
			applyJobDefaults(o)
			m.jobs = append(m.jobs, o)
			return checkJob(o)
		}
		return unsupported("%s: kind Job (%s) is not expressed by the oracle", file, h.APIVersion)
	default:
		return unsupported("%s: kind %s is not expressed by the oracle", file, h.Kind)
	}
}
