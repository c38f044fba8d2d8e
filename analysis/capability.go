package analysis

import (
	"bytes"
	"encoding/json"
	"html/template"

	"github.com/clinevo/clinevo/bench"
)

// Section is a benchmark's own part of a report (a capability): built from
// the report's input and its shared numbers, it is kept in report.json under
// key (no member when data is nil) and shown on the page as html.
type Section interface {
	Section(in Input, rep Report) (key string, data any, html template.HTML)
}

// Summarizer is a benchmark's lines in a report's terminal summary (a
// capability): figures a reader of a run wants at once, beside the shared
// ones.
type Summarizer interface {
	Summary(rep Report) []string
}

// summaries are the summary lines of the report's benchmarks, once each, in
// condition order.
func summaries(rep Report) []string {
	var out []string
	for _, b := range played(rep) {
		if s, ok := b.(Summarizer); ok {
			out = append(out, s.Summary(rep)...)
		}
	}
	return out
}

// played are the benchmarks the report's conditions play, once each, in
// condition order (a condition of a benchmark this build lacks has none).
func played(rep Report) []bench.Benchmark {
	var out []bench.Benchmark
	seen := map[string]bool{}
	for _, c := range rep.Conditions {
		if b := c.Bench; b != nil && !seen[b.Name()] {
			seen[b.Name()] = true
			out = append(out, b)
		}
	}
	return out
}

// section is a benchmark's part of a built report.
type section struct {
	Key  string
	Data any
	HTML template.HTML
}

// sections are the report's benchmark sections: one per benchmark its
// conditions play that has a Section, in condition order.
func sections(in Input, rep Report) []section {
	var out []section
	for _, b := range played(rep) {
		if s, ok := b.(Section); ok {
			key, data, html := s.Section(in, rep)
			out = append(out, section{Key: key, Data: data, HTML: html})
		}
	}
	return out
}

// MarshalJSON writes the report with each benchmark section's data as a
// member of its own.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	var extra []section
	for _, s := range r.sections {
		if s.Data != nil {
			extra = append(extra, s)
		}
	}
	if len(extra) == 0 {
		return b, nil
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, s := range extra {
		kb, _ := json.Marshal(s.Key) // a string always marshals
		db, err := json.Marshal(s.Data)
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(db)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// SectionData is the data of the benchmark section kept under key (what
// report.json holds there), nil without one.
func (r Report) SectionData(key string) any {
	for _, s := range r.sections {
		if s.Key == key {
			return s.Data
		}
	}
	return nil
}
