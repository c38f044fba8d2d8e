package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
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
// benchmark of the library names is an unknown field, as a misspelt shared
// field is, so a typo is never kept in silence.
type CaseFields interface {
	CaseFields() (exam, manager []string)
}

// Library is what reading cases knows of the build's benchmarks: the case
// fields and checks they add, the built-in splits they build and the
// formats they import. The engine builds it once from its benchmark set;
// the zero Library knows the shared case format, the synthetic corpus and
// AgentClinic's format only.
type Library struct {
	set bench.Set
}

// NewLibrary is the library of a benchmark set.
func NewLibrary(set bench.Set) Library { return Library{set: set} }

// Validate checks a case whole: the shared format (Validate), every member
// a benchmark adds to its views (a member none of the library's benchmarks
// names is an unknown field, as a misspelt shared field is), and each
// benchmark's own checks of what it added.
func (l Library) Validate(c *clinic.Case) error {
	if err := Validate(c); err != nil {
		return err
	}
	if err := l.checkMembers(c); err != nil {
		return err
	}
	for _, b := range l.set.All() {
		if err := b.ValidateCase(c); err != nil {
			return err
		}
	}
	return nil
}

// checkMembers refuses an extension member of a case that none of the
// library's benchmarks names.
func (l Library) checkMembers(c *clinic.Case) error {
	known := map[string]bool{}
	for _, b := range l.set.All() {
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
	// Files are the companion files the format reads beside its input (a
	// release's dictionaries), each given as --file NAME=PATH; the
	// format says where it looks for one that is not given.
	Files []FileOption
	// Read converts r (a file called name) under the import's options.
	Read func(r io.Reader, name string, opt Options) ([]clinic.Case, []Skipped, error)
}

// FileOption is a companion file a format reads.
type FileOption struct {
	Name string // as --file NAME=PATH names it
	Doc  string // one line for the command's help: what it is and its default
}

// Options are an import's choices beyond its input.
type Options struct {
	// SkipInvalid imports every valid case and lists the others; without it
	// any invalid case fails the import. A format that cannot skip returns
	// an error naming that.
	SkipInvalid bool
	// Files are the companion files given, by the names the format's Files
	// declare.
	Files map[string]string
	// DropImageCases leaves out the cases whose source shows an image
	// (AgentClinic's NEJM cases); by default they are imported as text and
	// marked (Provenance.ImageURL). Formats without such cases ignore it.
	DropImageCases bool
}

// agentClinic is AgentClinic's formats: a published corpus of cases, not a
// benchmark of its own here, so the corpus package reads it. A file is the
// MedQA OSCE variant or the NEJM one, told by its first record's fields.
var agentClinic = Format{Name: "agentclinic",
	Doc:  "AgentClinic JSONL, one case a line: the MedQA OSCE cases, or the NEJM cases (--drop-image-cases)",
	Read: importAgentClinicAny}

// importAgentClinicAny reads either variant of AgentClinic.
func importAgentClinicAny(r io.Reader, name string, o Options) ([]clinic.Case, []Skipped, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(1 << 16) // a short file peeks whole; the error says only that
	first, _, _ := bytes.Cut(bytes.TrimSpace(head), []byte("\n"))
	var probe map[string]json.RawMessage
	if json.Unmarshal(first, &probe) == nil && probe["OSCE_Examination"] == nil && (probe["patient_info"] != nil || probe["answers"] != nil) {
		return importAgentClinicNEJM(br, name, o)
	}
	return importAgentClinic(br, name, o.SkipInvalid)
}

// Formats lists every import format: the shared ones and the library's
// benchmarks', by name.
func (l Library) Formats() []Format {
	out := []Format{agentClinic}
	for _, b := range l.set.All() {
		if im, ok := b.(Importer); ok {
			out = append(out, im.Formats()...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FormatHelp lists the import formats, each with what it reads and the
// companion files it takes, for a command's help.
func (l Library) FormatHelp() string {
	var b strings.Builder
	for _, f := range l.Formats() {
		fmt.Fprintf(&b, "  %-15s %s\n", f.Name, f.Doc)
		for _, o := range f.Files {
			fmt.Fprintf(&b, "  %-15s   --file %s=PATH: %s\n", "", o.Name, o.Doc)
		}
	}
	return b.String()
}

// Import reads r in the named format. A companion file the format does not
// read is an error naming the ones it does.
func (l Library) Import(format string, r io.Reader, name string, opt Options) ([]clinic.Case, []Skipped, error) {
	var names []string
	for _, f := range l.Formats() {
		if f.Name != format {
			names = append(names, f.Name)
			continue
		}
		for _, k := range sortedKeys(opt.Files) {
			if !slices.ContainsFunc(f.Files, func(o FileOption) bool { return o.Name == k }) {
				return nil, nil, fmt.Errorf("corpus import %s: --file %s: unknown companion file, want %s", format, k, fileNames(f.Files))
			}
		}
		return f.Read(r, name, opt)
	}
	return nil, nil, fmt.Errorf("corpus import: unknown format %q, want one of %s", format, strings.Join(names, ", "))
}

// fileNames lists a format's companion files for an error: "none" when it
// reads none.
func fileNames(fs []FileOption) string {
	if len(fs) == 0 {
		return "none (this format reads no companion file)"
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return strings.Join(out, ", ")
}

// benchSplit is the library's benchmark that builds a split, if any.
func (l Library) benchSplit(split string) (Builtins, []int, bool) {
	for _, b := range l.set.All() {
		if bs, ok := b.(Builtins); ok {
			if vs, ok := bs.BuiltinSplits()[split]; ok {
				return bs, vs, true
			}
		}
	}
	return nil, nil, false
}

// benchSplitNames are the library's benchmarks' split names, sorted.
func (l Library) benchSplitNames() []string {
	var out []string
	for _, b := range l.set.All() {
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

// BenchSplits generates every built-in split of the library's benchmark
// name at a generator version and seed; it returns the splits by name and
// their names in order. A benchmark without built-in corpora, or a version
// a split is not built on, is an error naming it.
func (l Library) BenchSplits(name string, version int, seed uint64) (map[string][]clinic.Case, []string, error) {
	b, err := l.set.Get(name)
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

// WriteSplits writes the splits of the synthetic corpus at a generator
// version and seed, or with benchmark those of that benchmark's built-in
// corpus (BenchSplits), as dir/<split>.jsonl, and says on w how many cases
// each file holds.
func (l Library) WriteSplits(w io.Writer, dir, benchmark string, version int, seed uint64) error {
	var splits map[string][]clinic.Case
	var err error
	names := synth.Splits
	if benchmark != "" {
		splits, names, err = l.BenchSplits(benchmark, version, seed)
	} else {
		splits, err = synth.GenerateVersion(version, seed)
	}
	if err != nil {
		return fmt.Errorf("corpus gen: %w", err)
	}
	for _, name := range names {
		path := filepath.Join(dir, name+".jsonl")
		if err := l.WriteJSONL(path, splits[name]); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d cases\n", path, len(splits[name]))
	}
	return nil
}

// BenchSplitOwners are the library's benchmarks with built-in corpora, by
// name.
func (l Library) BenchSplitOwners() []string {
	var out []string
	for _, b := range l.set.All() {
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
func (l Library) ImportFile(format, in, out string, opt Options) ([]clinic.Case, []Skipped, error) {
	if err := notSameFile(in, out); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus import: %w", err)
	}
	defer f.Close()
	cases, skipped, err := l.Import(format, f, in, opt)
	if err != nil {
		return nil, skipped, err
	}
	if err := l.WriteJSONL(out, cases); err != nil {
		return nil, skipped, &WriteError{err}
	}
	return cases, skipped, nil
}

// ImportTo converts in as ImportFile does and reports on it: each line it
// skipped on errw, with their count when opt.SkipInvalid, then, once out is
// written, what it redacted (WriteRedactions) on errw and how many cases it
// wrote on w.
func (l Library) ImportTo(w, errw io.Writer, format, in, out string, opt Options) error {
	cases, skipped, err := l.ImportFile(format, in, out, opt)
	for _, s := range skipped {
		fmt.Fprintln(errw, s)
	}
	if opt.SkipInvalid {
		fmt.Fprintf(errw, "skipped lines: %d\n", len(skipped))
	}
	if err != nil {
		return err
	}
	WriteRedactions(errw, cases)
	fmt.Fprintf(w, "%s: %d cases imported from %s\n", out, len(cases), in)
	return nil
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
