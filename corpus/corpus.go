// Package corpus loads, validates, writes and imports case corpora: the native
// JSONL format, AgentClinic OSCE JSONL, MedEvoEval three-view JSON, and the
// embedded synthetic corpus (package synth).
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/textmatch"
)

// DefaultSeed is the seed of the built-in corpus references.
const DefaultSeed = 7

// Corpus is an ordered set of cases with an ID index.
type Corpus struct {
	Name  string
	Cases []clinic.Case
	byID  map[string]int
}

// New indexes cases; duplicate IDs are an error.
func New(name string, cases []clinic.Case) (*Corpus, error) {
	c := &Corpus{Name: name, Cases: cases, byID: make(map[string]int, len(cases))}
	for i, cs := range cases {
		if j, ok := c.byID[cs.ID]; ok {
			return nil, fmt.Errorf("%s: case %d: id: duplicate case ID %q (first at case %d)", name, i+1, cs.ID, j+1)
		}
		c.byID[cs.ID] = i
	}
	return c, nil
}

// Case returns the case with the given ID.
func (c *Corpus) Case(id string) (clinic.Case, bool) {
	i, ok := c.byID[id]
	if !ok {
		return clinic.Case{}, false
	}
	return c.Cases[i], true
}

// FieldError is a validation failure of one field of one case.
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

// Validate checks that a case has every required field and only allowed
// values of the shared case format, and returns the first problem as a
// FieldError. What a benchmark adds to a case is checked by the benchmark
// (Library.Validate; an importer in a benchmark's folder calls its own
// ValidateCase).
func Validate(c *clinic.Case) error {
	fail := func(field, msg string) error { return FieldError{field, msg} }
	switch {
	case c.SchemaVersion == 0:
		return fail("schema_version", "required")
	case c.SchemaVersion != clinic.CaseSchemaVersion:
		return fail("schema_version", fmt.Sprintf("unknown version %d, want %d", c.SchemaVersion, clinic.CaseSchemaVersion))
	case strings.TrimSpace(c.ID) == "":
		return fail("id", "required")
	case ValidateCaseID(c.ID) != nil:
		return fail("id", ValidateCaseID(c.ID).Error())
	case len(c.Condition) > MaxKeyBytes || len(c.System) > MaxKeyBytes:
		return fail("condition", fmt.Sprintf("condition and system keys take at most %d bytes each (they are search attributes of every episode), got %d and %d",
			MaxKeyBytes, len(c.Condition), len(c.System)))
	case strings.TrimSpace(c.Patient.OpeningComplaint) == "":
		return fail("patient_view.opening_complaint", "required")
	case len(c.Patient.Facts) == 0:
		return fail("patient_view.facts", "at least one fact is required")
	case strings.TrimSpace(c.Manager.Diagnosis.Name) == "":
		return fail("manager_view.diagnosis.display_name", "required")
	case strings.TrimSpace(c.Provenance.Source) == "":
		return fail("provenance.source", "required")
	}
	if err := checkSizes(c); err != nil {
		return err
	}
	if b, err := json.Marshal(c); err != nil || checkCaseBytes(len(b)) != nil {
		return errors.Join(err, checkCaseBytes(len(b)))
	}
	if err := validateFacts(c.Patient.Facts); err != nil {
		return err
	}
	p := c.Patient.Persona
	for _, chk := range []struct {
		field, v string
		allowed  []string
	}{{"personality", p.Personality, clinic.Personalities}, {"language", p.Language, clinic.Languages},
		{"recall", p.Recall, clinic.Recalls}, {"clarity", p.Clarity, clinic.Clarities}, {"disorientation", p.Disorientation, clinic.Disorientations}} {
		if chk.v != "" && !slices.Contains(chk.allowed, chk.v) {
			return fail("patient_view.persona."+chk.field, fmt.Sprintf("unknown value %q, want one of %s", chk.v, strings.Join(chk.allowed, ", ")))
		}
	}
	return validateViews(c)
}

// validateViews checks the exam's tests, the manager's topics, actions and
// referral, and that no finding is both present and absent.
func validateViews(c *clinic.Case) error {
	fail := func(field, msg string) error { return FieldError{field, msg} }
	for i, t := range c.Exam.Tests {
		if t.Name == "" {
			return fail(fmt.Sprintf("exam_view.tests[%d].name", i), "required")
		}
		if t.Result == "" {
			return fail(fmt.Sprintf("exam_view.tests[%d].result", i), "required")
		}
	}
	for i, t := range c.Manager.MustAsk {
		if !slices.Contains(clinic.Topics, t) {
			return fail(fmt.Sprintf("manager_view.must_ask_topics[%d]", i), fmt.Sprintf("unknown topic %q", t))
		}
	}
	for i, a := range c.Manager.RequiredActions {
		kind, _, _ := strings.Cut(a, ":")
		if !clinic.ActionKind(kind).Known() {
			return fail(fmt.Sprintf("manager_view.required_actions[%d]", i), fmt.Sprintf("%q does not start with an action (ASK, REQUEST_TEST, CALL_MDT, FINALIZE)", a))
		}
	}
	if r := c.Manager.Referral; r != nil && r.Urgency != "" && !slices.Contains([]string{"routine", "urgent", "emergency"}, r.Urgency) {
		return fail("manager_view.referral.urgency", fmt.Sprintf("unknown urgency %q, want routine, urgent or emergency", r.Urgency))
	}
	// A finding is present or absent, not both: a denied finding (Fact.Absent)
	// must not also be one the patient has.
	present := map[string]int{}
	for i, f := range c.Patient.Facts {
		if !f.Absent {
			present[textmatch.Normalize(f.Text)] = i
		}
	}
	for i, f := range c.Patient.Facts {
		if j, ok := present[textmatch.Normalize(f.Text)]; f.Absent && ok {
			return fail(fmt.Sprintf("patient_view.facts[%d].absent", i), fmt.Sprintf("the finding is also present as facts[%d]: a finding is present or absent, not both", j))
		}
	}
	// The parts a benchmark adds to the case (a tool sandbox, a referral
	// key) are its own to check (Library.Validate).
	return nil
}

// validateFacts checks the facts of a case: an ID each, unique, a text and
// known topics.
func validateFacts(facts []clinic.Fact) error {
	fail := func(field, msg string) error { return FieldError{field, msg} }
	seen := map[string]bool{}
	for i, f := range facts {
		field := fmt.Sprintf("patient_view.facts[%d]", i)
		switch {
		case f.ID == "":
			return fail(field+".id", "required")
		case seen[f.ID]:
			return fail(field+".id", fmt.Sprintf("duplicate fact ID %q", f.ID))
		case strings.TrimSpace(f.Text) == "":
			return fail(field+".text", "required")
		case len(f.Topics) == 0:
			return fail(field+".topics", "at least one topic is required")
		}
		seen[f.ID] = true
		for j, t := range f.Topics {
			if !slices.Contains(clinic.Topics, t) {
				return fail(fmt.Sprintf("%s.topics[%d]", field, j), fmt.Sprintf("unknown topic %q, want one of %s", t, strings.Join(clinic.Topics, ", ")))
			}
		}
	}
	return nil
}

// ReadJSONL reads native cases, one JSON object a line, validating each
// (Validate). Errors name the file, the line and the field.
func (l Library) ReadJSONL(r io.Reader, name string) ([]clinic.Case, error) {
	var cases []clinic.Case
	firstLine := map[string]int{}
	err := readLines(r, name, func(line int, raw []byte) error {
		c, err := l.decodeCase(raw, line)
		if err != nil {
			return err
		}
		if first, ok := firstLine[c.ID]; ok {
			return fmt.Errorf("field id: duplicate case ID %q (first on line %d)", c.ID, first)
		}
		firstLine[c.ID] = line
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", name)
	}
	return cases, nil
}

// decodeCase reads and validates (Library.Validate) the case of one line;
// the reader names the file and the line.
func (l Library) decodeCase(raw []byte, line int) (clinic.Case, error) {
	var c clinic.Case
	if raw[0] != '{' {
		return c, errors.New(notAnObject(raw, line))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, errors.New(DescribeJSONError(err))
	}
	if dec.More() {
		return c, errors.New("more than one JSON value on the line: a native corpus holds one case object a line")
	}
	if err := l.Validate(&c); err != nil {
		return c, fmt.Errorf("case %q: %w", c.ID, err)
	}
	return c, nil
}

// notAnObject says what a line holds instead of a case object.
func notAnObject(raw []byte, line int) string {
	const want = "a native corpus is JSON Lines, one case object a line"
	if raw[0] == '[' && line == 1 {
		return want + ", and this file starts with a JSON array (turn it into lines with jq -c '.[]', or import it with `clinevo corpus import`)"
	}
	return fmt.Sprintf("%s; this line starts with %.20q", want, raw)
}

// DescribeJSONError says what is wrong with a JSON value in words that name the field.
func DescribeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %s: expected %s, got JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "field " + strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`) + ": unknown field"
	}
	return "malformed JSON: " + err.Error()
}

// WriteJSONL validates every case (Validate) and writes them atomically:
// the file appears whole or not at all.
func (l Library) WriteJSONL(path string, cases []clinic.Case) error {
	seen := map[string]int{}
	for i := range cases {
		if err := l.Validate(&cases[i]); err != nil {
			return fmt.Errorf("write %s: case %d (%q): %w", path, i+1, cases[i].ID, err)
		}
		if j, ok := seen[cases[i].ID]; ok {
			return fmt.Errorf("write %s: case %d: field id: duplicate case ID %q (first at case %d)", path, i+1, cases[i].ID, j)
		}
		seen[cases[i].ID] = i + 1
	}
	return WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range cases {
			if err := enc.Encode(&cases[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteAtomic writes a file through a temporary file in the same directory and
// renames it into place, so a failure leaves no partial file behind.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// BuiltinPrefix marks a reference to the embedded synthetic corpus (see ParseBuiltin).
const BuiltinPrefix = "builtin:"

// Builtin is a parsed reference to the embedded synthetic corpus.
type Builtin struct {
	Version int    // generator version: synth.V1 to synth.Latest
	Split   string // stream, heldout, cross or update
	Seed    uint64
}

// String is the reference's explicit spelling, e.g. "builtin:v2:stream@7".
func (b Builtin) String() string {
	return fmt.Sprintf("%sv%d:%s@%d", BuiltinPrefix, b.Version, b.Split, b.Seed)
}

// builtinForm is the grammar quoted in reference errors.
const builtinForm = "builtin:[v<version>:]<split>[@<seed>]"

// ParseBuiltin parses "builtin:[v<version>:]<split>[@<seed>]": version v1,
// v2 or v3 (default: synth.Default, v2), split one of stream, heldout, cross, update,
// or a split one of the library's benchmarks builds (Builtins, on the versions it
// names), seed a non-negative integer (default 7). "builtin:stream@7" is
// the default version's stream; "builtin:v1:stream@7" is version 1's, byte
// for byte as it always was.
func (l Library) ParseBuiltin(ref string) (Builtin, error) {
	rest, ok := strings.CutPrefix(ref, BuiltinPrefix)
	if !ok {
		return Builtin{}, fmt.Errorf("corpus %q: a builtin reference starts with %q", ref, BuiltinPrefix)
	}
	b := Builtin{Version: synth.Default, Seed: DefaultSeed}
	if version, split, hasVersion := strings.Cut(rest, ":"); hasVersion {
		n, err := strconv.Atoi(strings.TrimPrefix(version, "v"))
		if !strings.HasPrefix(version, "v") || err != nil || n < synth.V1 || n > synth.Latest {
			return Builtin{}, fmt.Errorf("corpus %q: unknown generator version %q, want %s (form %s)", ref, version, versions(), builtinForm)
		}
		b.Version, rest = n, split
	}
	split, seedText, hasSeed := strings.Cut(rest, "@")
	if hasSeed {
		seed, err := strconv.ParseUint(seedText, 10, 64)
		if err != nil {
			return Builtin{}, fmt.Errorf("corpus %q: seed %q is not a non-negative integer (form %s)", ref, seedText, builtinForm)
		}
		b.Seed = seed
	}
	splits := append(append([]string(nil), synth.Splits...), l.benchSplitNames()...)
	if !slices.Contains(splits, split) {
		return Builtin{}, fmt.Errorf("corpus %q: unknown split %q, want one of %s (form %s)", ref, split, strings.Join(splits, ", "), builtinForm)
	}
	if _, vs, ok := l.benchSplit(split); ok && !slices.Contains(vs, b.Version) {
		return Builtin{}, fmt.Errorf("corpus %q: split %s is built on generator version %s only, not v%d", ref, split, versionList(vs), b.Version)
	}
	b.Split = split
	return b, nil
}

// versionList spells versions as "v2" or "v1, v2".
func versionList(vs []int) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "v" + strconv.Itoa(v)
	}
	return strings.Join(out, ", ")
}

// versions lists the generator versions a reference may name: "v1 or v2".
func versions() string {
	var vs []string
	for v := synth.V1; v <= synth.Latest; v++ {
		vs = append(vs, "v"+strconv.Itoa(v))
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// generated memoises the generators: a builtin split is a pure function of
// its split, generator version and seed, and a process loads the same one many
// times (every worker's corpus cache, every CLI check and validation): before
// the memo, generation was 13 % of the engine package's test processor time.
var generated sync.Map // generatedKey -> *generation

// generatedKey names one generation: a benchmark's split, or every split of the
// synthetic corpus (split "").
type generatedKey struct {
	split   string
	version int
	seed    uint64
}

type generation struct {
	once   sync.Once
	splits map[string][]clinic.Case
	err    error
}

// builtinCases returns a copy of the case list of a builtin reference (the
// cases' own slices are shared; no caller writes into a loaded corpus).
func (l Library) builtinCases(b Builtin) ([]clinic.Case, error) {
	key := generatedKey{version: b.Version, seed: b.Seed}
	bs, _, isBench := l.benchSplit(b.Split)
	if isBench {
		key.split = b.Split
	}
	v, _ := generated.LoadOrStore(key, &generation{})
	g := v.(*generation)
	g.once.Do(func() {
		if isBench {
			var cases []clinic.Case
			cases, g.err = bs.Builtin(b.Split, b.Version, b.Seed)
			g.splits = map[string][]clinic.Case{b.Split: cases}
			return
		}
		g.splits, g.err = synth.GenerateVersion(b.Version, b.Seed)
	})
	if g.err != nil {
		return nil, g.err
	}
	return slices.Clone(g.splits[b.Split]), nil
}

// Load opens a corpus by reference: a builtin reference (ParseBuiltin) or a
// native JSONL file.
func (l Library) Load(ref string) (*Corpus, error) {
	if strings.HasPrefix(ref, BuiltinPrefix) {
		b, err := l.ParseBuiltin(ref)
		if err != nil {
			return nil, err
		}
		cases, err := l.builtinCases(b)
		if err != nil {
			return nil, fmt.Errorf("corpus %q: %w", ref, err)
		}
		return New(ref, cases)
	}
	f, err := os.Open(ref)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	cases, err := l.ReadJSONL(f, ref)
	if err != nil {
		return nil, err
	}
	return New(ref, cases)
}

// Validation is what `corpus validate` says of a valid corpus; its JSON
// keys are in the order the command has printed them.
type Validation struct {
	Cases         int    `json:"cases"`
	Corpus        string `json:"corpus"`
	SchemaVersion int    `json:"schema_version"`
	Valid         bool   `json:"valid"`
}

// Check loads the corpus ref names, which checks every case, and, strict,
// that whether a test returns a result does not depend on the condition
// (CheckAvailability).
func (l Library) Check(ref string, strict bool) (Validation, error) {
	c, err := l.Load(ref)
	if err != nil {
		return Validation{}, err
	}
	if strict {
		if err := CheckAvailability(c); err != nil {
			return Validation{}, err
		}
	}
	return Validation{Cases: len(c.Cases), Corpus: ref, SchemaVersion: clinic.CaseSchemaVersion, Valid: true}, nil
}

// Write prints the validation as a line.
func (v Validation) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: %d cases, all valid (schema_version %d)\n", v.Corpus, v.Cases, v.SchemaVersion)
	return err
}

// EachLine calls fn with every non-blank line of r (a file called name),
// trimmed, and its 1-based number, until fn returns an error; a line that
// cannot be read or is not UTF-8 text (checkLine) is an error naming the
// file and the line. JSON Lines readers share it.
func EachLine(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if raw := bytes.TrimSpace(sc.Bytes()); len(raw) > 0 {
			if err := checkLine(raw, line); err != nil {
				return fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if err := fn(line, raw); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: read: %w", name, line+1, err)
	}
	return nil
}

// HeldOut is the held-out split that goes with a built-in stream corpus:
// for "builtin:[vN:]stream[@seed]", the heldout split of the same generator
// version and seed (explicitly spelt), which the generator draws apart from
// the stream's cases. Any other reference has none clinevo knows.
func (l Library) HeldOut(ref string) (string, bool) {
	if !strings.HasPrefix(ref, BuiltinPrefix) {
		return "", false
	}
	b, err := l.ParseBuiltin(ref)
	if err != nil || b.Split != "stream" {
		return "", false
	}
	b.Split = "heldout"
	return b.String(), true
}
