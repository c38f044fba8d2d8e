// Package experiments ships the experiment specs embedded in the binary and
// reads experiment files: YAML with known fields only, every condition's
// settings resolved and checked, every corpus loadable.
package experiments

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/settings"
)

// Quick is the demo's experiment.
//
//go:embed quick.yaml
var Quick []byte

// Methods runs every learning method (evolver.method) on one case stream
// per benchmark (docs/learning-methods.md).
//
//go:embed methods.yaml
var Methods []byte

// shared are the specs of this folder by file name: the ones that are not a
// single benchmark's.
var shared = map[string][]byte{"quick.yaml": Quick, "methods.yaml": Methods}

// Specs are a benchmark's shipped experiment specs (a capability), by file
// name, embedded from its folder.
type Specs interface {
	Specs() map[string][]byte
}

// Shipped lists every spec embedded in the binary by file name: the shared
// ones and those of the benchmarks of set.
func Shipped(set bench.Set) map[string][]byte {
	out := map[string][]byte{}
	for n, b := range shared {
		out[n] = b
	}
	for _, bm := range set.All() {
		if sp, ok := bm.(Specs); ok {
			for n, b := range sp.Specs() {
				out[n] = b
			}
		}
	}
	return out
}

// Load reads an experiment file (see Parse).
func Load(path string, base settings.Settings, set bench.Set) (contract.ExperimentSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return contract.ExperimentSpec{}, fmt.Errorf("experiment: %w", err)
	}
	return Parse(path, b, base, set)
}

// Parse reads an experiment spec submitted with the base settings (the
// submitter's configuration): unknown YAML fields and unknown settings keys
// are errors naming them, orderings are written out (ExperimentSpec.Expand),
// every condition's settings must validate against
// the build's benchmarks (set), every corpus the spec names must load, and a
// prompt optimiser's development set is held out of its stream (Development).
func Parse(name string, b []byte, base settings.Settings, set bench.Set) (contract.ExperimentSpec, error) {
	var spec contract.ExperimentSpec
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return spec, fmt.Errorf("experiment %s: %w (want a YAML mapping of the spec's keys: name, corpus, conditions, ...)", name, err)
	}
	if doc.Kind == 0 || (len(doc.Content) == 1 && doc.Content[0].Kind != yaml.MappingNode) {
		return spec, fmt.Errorf("experiment %s: want a YAML mapping of the spec's keys (name, corpus, conditions, ...), got %s", name, describeDoc(&doc))
	}
	if err := wholeNumbers(&doc, reflect.TypeFor[contract.ExperimentSpec](), ""); err != nil {
		return spec, fmt.Errorf("experiment %s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		return spec, fmt.Errorf("experiment %s: %w", name, err)
	}
	spec.Base = base
	if err := spec.Validate(); err != nil {
		return spec, fmt.Errorf("%s: %w", name, err)
	}
	spec = spec.Expand() // every ordering's conditions, as the workflow plays them
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return spec, fmt.Errorf("%s: %w", name, err)
		}
		if err := set.ValidateSettings(s); err != nil {
			return spec, fmt.Errorf("%s: conditions[%d] (%s): settings: %w", name, i, c.Name, err)
		}
	}
	lib := corpus.NewLibrary(set)
	for _, ref := range spec.Corpora() {
		if _, err := lib.Load(ref); err != nil {
			return spec, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := developments(lib, &spec); err != nil {
		return spec, fmt.Errorf("%s: experiment %s: %w", name, spec.Name, err)
	}
	return spec, nil
}

// describeDoc says what a YAML document holds instead of a spec.
func describeDoc(doc *yaml.Node) string {
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return "an empty document"
	}
	if n := doc.Content[0]; n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("the text %.40q on line %d", n.Value, n.Line)
	}
	return show(doc.Content[0])
}
