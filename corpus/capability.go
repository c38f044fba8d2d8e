package corpus

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

// Builtins are a benchmark's built-in corpora (a capability): named splits
// of generated cases, each built on some generator versions.
type Builtins interface {
	// BuiltinSplits maps each split name (unique among the benchmarks) to
	// the generator versions it is built on.
	BuiltinSplits() map[string][]int
	// Builtin generates a split at a generator version and seed.
	Builtin(split string, version int, seed uint64) ([]clinic.Case, error)
}

// Importer is a benchmark's readers of published case formats (a
// capability), for `clinevo corpus import FORMAT`.
type Importer interface {
	Formats() []Format
}

// Format is a published case format clinevo imports.
type Format struct {
	Name string // as `corpus import` takes it
	Doc  string // one line for the command's help
	// Read converts r (a file called name). With skipInvalid it imports every
	// valid case and lists the others; without, any invalid case fails the
	// import. A format that cannot skip returns an error naming that.
	Read func(r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []Skipped, error)
}

// agentClinic is the AgentClinic OSCE format: a published corpus of cases,
// not a benchmark of its own here, so the corpus package reads it.
var agentClinic = Format{Name: "agentclinic", Doc: "AgentClinic MedQA OSCE JSONL, one case a line",
	Read: importAgentClinic}

// Formats lists every import format: the shared ones and the registered
// benchmarks', by name.
func Formats() []Format {
	out := []Format{agentClinic}
	for _, b := range bench.All() {
		if im, ok := b.(Importer); ok {
			out = append(out, im.Formats()...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Import reads r in the named format.
func Import(format string, r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []Skipped, error) {
	var names []string
	for _, f := range Formats() {
		if f.Name == format {
			return f.Read(r, name, skipInvalid)
		}
		names = append(names, f.Name)
	}
	return nil, nil, fmt.Errorf("corpus import: unknown format %q, want one of %s", format, strings.Join(names, ", "))
}

// benchSplit is the registered benchmark that builds a split, if any.
func benchSplit(split string) (Builtins, []int, bool) {
	for _, b := range bench.All() {
		if bs, ok := b.(Builtins); ok {
			if vs, ok := bs.BuiltinSplits()[split]; ok {
				return bs, vs, true
			}
		}
	}
	return nil, nil, false
}

// benchSplitNames are the registered benchmarks' split names, sorted.
func benchSplitNames() []string {
	var out []string
	for _, b := range bench.All() {
		if bs, ok := b.(Builtins); ok {
			for s := range bs.BuiltinSplits() {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
