package sdbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// ImportSource is the provenance source of imported SDBench cases.
const ImportSource = "sdbench"

// CaseFile is one case in the import shape (docs/benchmarks/sdbench.md):
// the paper's case (SDBench: an abstract, the full case, the final diagnosis),
// with optional structure that lets the built-in gatekeeper answer from it.
// Without it, the full case is split into history, examination and
// investigations (SplitNarrative).
type CaseFile struct {
	ID             string   `json:"id"`
	Abstract       string   `json:"abstract"`
	FullCase       string   `json:"full_case"`
	FinalDiagnosis string   `json:"final_diagnosis"`
	Acceptable     []string `json:"acceptable_diagnoses,omitempty"`
	Demographics   string   `json:"demographics,omitempty"` // "29-year-old woman"
	History        []struct {
		Text   string   `json:"text"`
		Topics []string `json:"topics,omitempty"`
	} `json:"history,omitempty"`
	Examination []clinic.Finding `json:"examination,omitempty"`
	Tests       []struct {
		Name   string `json:"name"`
		Result string `json:"result"`
	} `json:"tests,omitempty"`
}

var _ corpus.Importer = Benchmark{}

// Formats is the SDBench case shape.
func (Benchmark) Formats() []corpus.Format {
	return []corpus.Format{{Name: Name, Doc: "SDBench cases (abstract, full_case, final_diagnosis): a JSON array or one object a line",
		Read: func(r io.Reader, name string, opt corpus.Options) ([]clinic.Case, []corpus.Skipped, error) {
			return Import(r, name, opt.SkipInvalid)
		}}}
}

// Import reads SDBench cases from r (a file called name): a JSON array, or
// one object a line. Errors name the record and field; with skipInvalid a
// bad record is listed and skipped.
func Import(r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []corpus.Skipped, error) {
	data, err := corpus.ReadWhole(r, name)
	if err != nil {
		return nil, nil, err
	}
	type rec struct {
		line int // 0 for a record of an array
		n    int
		raw  json.RawMessage
	}
	var recs []rec
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, nil, fmt.Errorf("%s: no cases", name)
	case trimmed[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			return nil, nil, fmt.Errorf("%s: %s", name, corpus.DescribeJSONError(err))
		}
		for i, a := range arr {
			recs = append(recs, rec{n: i + 1, raw: a})
		}
	default:
		for i, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				recs = append(recs, rec{line: i + 1, n: len(recs) + 1, raw: bytes.TrimSpace(l)})
			}
		}
	}
	var cases []clinic.Case
	var skipped []corpus.Skipped
	seen := map[string]bool{}
	for _, rc := range recs {
		where := fmt.Sprintf("%s: record %d", name, rc.n)
		if rc.line > 0 {
			where = fmt.Sprintf("%s:%d", name, rc.line)
		}
		c, err := convert(rc.raw)
		if err == nil && seen[c.ID] {
			err = corpus.FieldError{Field: "id", Msg: fmt.Sprintf("duplicate case ID %q", c.ID)}
		}
		if err != nil {
			if !skipInvalid {
				return nil, nil, fmt.Errorf("%s: %w", where, err)
			}
			skipped = append(skipped, corpus.Skipped{File: name, Line: max(rc.line, rc.n), Reason: err.Error()})
			continue
		}
		seen[c.ID] = true
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, skipped, fmt.Errorf("%s: no valid cases (%d records skipped)", name, len(skipped))
	}
	return cases, skipped, nil
}

func convert(raw json.RawMessage) (clinic.Case, error) {
	var f CaseFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return clinic.Case{}, fmt.Errorf("%s", corpus.DescribeJSONError(err))
	}
	for _, req := range []struct{ field, v string }{{"id", f.ID}, {"abstract", f.Abstract}, {"full_case", f.FullCase}, {"final_diagnosis", f.FinalDiagnosis}} {
		if strings.TrimSpace(req.v) == "" {
			return clinic.Case{}, corpus.FieldError{Field: req.field, Msg: "required"}
		}
	}
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: strings.TrimSpace(f.ID), Condition: corpus.ConditionKey(f.FinalDiagnosis),
		Provenance: clinic.Provenance{Source: ImportSource, SourceCaseID: f.ID}}
	demo := f.Demographics
	if demo == "" {
		demo = f.Abstract // "A 29-year-old woman was admitted ..."
	}
	c.Patient.Demographics = corpus.ParseDemographics(demo)
	if f.Demographics == "" {
		c.Patient.Demographics.Text = ""
	}
	c.Patient.OpeningComplaint = strings.TrimSpace(f.Abstract)
	if err := f.record(&c); err != nil {
		return clinic.Case{}, err
	}
	x, err := c.Exam.Ext.Put(Record{FullCase: strings.TrimSpace(f.FullCase)})
	if err != nil {
		return clinic.Case{}, err
	}
	c.Exam.Ext = x
	c.Manager.Diagnosis = clinic.Diagnosis{Name: strings.TrimSpace(f.FinalDiagnosis), Acceptable: f.Acceptable}
	if err := corpus.Validate(&c); err != nil {
		return clinic.Case{}, err
	}
	if err := (Benchmark{}).ValidateCase(&c); err != nil {
		return clinic.Case{}, err
	}
	return c, nil
}

// record fills the case's history, examination and tests: the file's
// structure where it gives one, else the full case split (SplitNarrative).
// No history fact or examination finding may name the diagnosis: one that
// does is left out (it stays in the full case, which only a model
// gatekeeper reads).
func (f CaseFile) record(c *clinic.Case) error {
	n := SplitNarrative(f.FullCase)
	guard := newLeakGuard(append([]string{f.FinalDiagnosis}, f.Acceptable...)...)
	history := n.History
	var topics [][]string
	if len(f.History) > 0 {
		history, topics = nil, make([][]string, len(f.History))
		for i, h := range f.History {
			if strings.TrimSpace(h.Text) == "" {
				return corpus.FieldError{Field: fmt.Sprintf("history[%d].text", i), Msg: "required"}
			}
			history, topics[i] = append(history, strings.TrimSpace(h.Text)), h.Topics
		}
	}
	for i, text := range history {
		if guard.leaks(text) {
			continue
		}
		var ts []string
		if i < len(topics) {
			ts = topics[i]
		}
		if len(ts) == 0 {
			ts = corpus.NarrativeTopics(text)
		}
		c.Patient.Facts = append(c.Patient.Facts, clinic.Fact{ID: fmt.Sprintf("h%d", i+1), Text: text, Topics: ts})
	}
	findings := n.Examination
	if len(f.Examination) > 0 {
		findings = f.Examination
	}
	for i, x := range findings {
		if strings.TrimSpace(x.System) == "" || strings.TrimSpace(x.Text) == "" {
			return corpus.FieldError{Field: fmt.Sprintf("examination[%d]", i), Msg: "want a system and a text"}
		}
		if !guard.leaks(x.Text) {
			c.Exam.Findings = append(c.Exam.Findings, x)
		}
	}
	return f.tests(c, n)
}

// tests are the file's tests, else the investigations of the full case, by
// the names the catalog gives them.
func (f CaseFile) tests(c *clinic.Case, n Narrative) error {
	if len(f.Tests) == 0 {
		c.Exam.Tests = n.Investigations
		return nil
	}
	for i, t := range f.Tests {
		if strings.TrimSpace(t.Name) == "" || strings.TrimSpace(t.Result) == "" {
			return corpus.FieldError{Field: fmt.Sprintf("tests[%d]", i), Msg: "want a name and a result"}
		}
		name, aliases := corpus.TestName(t.Name)
		if name != strings.TrimSpace(strings.ToLower(t.Name)) {
			aliases = append(aliases, strings.TrimSpace(t.Name))
		}
		c.Exam.Tests = append(c.Exam.Tests, clinic.TestValue{Name: name, Aliases: aliases, Result: strings.TrimSpace(t.Result)})
	}
	return nil
}
