package corpus

import (
	"fmt"
	"io"
	"os"
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

// CaseFields are the members a benchmark adds to a case's exam and manager
// views (a capability; they are written inline, clinic.Ext): a member no
// registered benchmark names is an unknown field, as a misspelt shared field
// is, so a typo is never kept in silence.
type CaseFields interface {
	CaseFields() (exam, manager []string)
}

// checkMembers refuses an extension member of a case that no registered
// benchmark names.
func checkMembers(c *clinic.Case) error {
	known := map[string]bool{}
	for _, b := range bench.All() {
		if cf, ok := b.(CaseFields); ok {
			exam, manager := cf.CaseFields()
			for _, k := range exam {
				known["exam_view."+k] = true
			}
			for _, k := range manager {
				known["manager_view."+k] = true
			}
		}
	}
	for _, v := range []struct {
		view string
		ext  clinic.Ext
	}{{"exam_view", c.Exam.Ext}, {"manager_view", c.Manager.Ext}} {
		for _, k := range v.ext.Keys() {
			if !known[v.view+"."+k] {
				return FieldError{Field: v.view + "." + k, Msg: "unknown field"}
			}
		}
	}
	return nil
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

// BenchSplits generates every built-in split of the registered benchmark
// name at a generator version and seed; it returns the splits by name and
// their names in order. A benchmark without built-in corpora, or a version
// a split is not built on, is an error naming it.
func BenchSplits(name string, version int, seed uint64) (map[string][]clinic.Case, []string, error) {
	b, err := bench.Get(name)
	if err != nil {
		return nil, nil, err
	}
	bs, ok := b.(Builtins)
	if !ok {
		return nil, nil, fmt.Errorf("benchmark %s has no built-in corpus", name)
	}
	splits := bs.BuiltinSplits()
	var names []string
	for split := range splits {
		names = append(names, split)
	}
	sort.Strings(names)
	for _, split := range names {
		if vs := splits[split]; !slices.Contains(vs, version) {
			return nil, nil, fmt.Errorf("benchmark %s: split %s is built on generator version %s only, not v%d", name, split, versionList(vs), version)
		}
	}
	out := map[string][]clinic.Case{}
	for _, split := range names {
		cases, err := bs.Builtin(split, version, seed)
		if err != nil {
			return nil, nil, fmt.Errorf("benchmark %s: split %s: %w", name, split, err)
		}
		out[split] = cases
	}
	return out, names, nil
}

// BenchSplitOwners are the registered benchmarks with built-in corpora, by
// name.
func BenchSplitOwners() []string {
	var out []string
	for _, b := range bench.All() {
		if _, ok := b.(Builtins); ok {
			out = append(out, b.Name())
		}
	}
	return out
}

// ImportFile converts the file in, in the named format, into the native
// corpus out (see Import and WriteJSONL). out must not be in, by any name
// (a symbolic or hard link to it included): the import would replace the
// file it reads. An error writing out is a *WriteError; any other error is
// the input's.
func ImportFile(format, in, out string, skipInvalid bool) ([]clinic.Case, []Skipped, error) {
	if err := notSameFile(in, out); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus import: %w", err)
	}
	defer f.Close()
	cases, skipped, err := Import(format, f, in, skipInvalid)
	if err != nil {
		return nil, skipped, err
	}
	if err := WriteJSONL(out, cases); err != nil {
		return nil, skipped, &WriteError{err}
	}
	return cases, skipped, nil
}

// WriteError is a failure to write a corpus file (a full disk, a directory
// that cannot be written), as opposed to a fault of the input.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// notSameFile refuses an output that is the input file itself.
func notSameFile(in, out string) error {
	a, err := os.Stat(in)
	if err != nil {
		return fmt.Errorf("corpus import: %w", err)
	}
	b, err := os.Stat(out)
	if err != nil {
		return nil // out does not exist (yet), or cannot be read: not in
	}
	if os.SameFile(a, b) {
		return fmt.Errorf("corpus import: --out %s is the input file %s (the same file by inode): the import would overwrite what it reads; choose another output file", out, in)
	}
	return nil
}
