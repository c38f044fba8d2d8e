package ddxplus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Evidence types of release_evidences.json (data_type): binary, categorical
// and multi-choice. A categorical evidence whose values are numbers is a
// scale ("How intense is the pain?", 0 to 10).
const (
	Binary      = "B"
	Categorical = "C"
	MultiChoice = "M"
)

// Evidence is one evidence of the release (a symptom or an antecedent): its
// English question, its type, and for a categorical or multi-choice one its
// values with their English meanings.
type Evidence struct {
	Code       string
	Group      string // code_question: the evidence that must be present for this one to be asked
	Question   string
	Antecedent bool
	Type       string
	Default    string
	Values     []string // possible-values, as text
	Meanings   map[string]string
	Scale      bool // every value is a whole number
}

// Condition is one of the 49 pathologies of the release.
type Condition struct {
	Name        string
	ICD10       string // upper case, as ICD-10 writes codes (the release writes some in lower case)
	Severity    int
	Symptoms    []string // evidence codes
	Antecedents []string
}

// Dictionary is the release's two dictionaries, decoded: every evidence by
// code and every pathology by name.
type Dictionary struct {
	evidences  map[string]Evidence
	codes      []string // in code order (E_0, E_1, ...)
	conditions map[string]Condition
	names      []string // pathology names in byte order: the options' order
}

type rawEvidence struct {
	Name       string            `json:"name"`
	Group      string            `json:"code_question"`
	Question   string            `json:"question_en"`
	Antecedent bool              `json:"is_antecedent"`
	Type       string            `json:"data_type"`
	Default    json.RawMessage   `json:"default_value"`
	Values     []json.RawMessage `json:"possible-values"`
	Meanings   map[string]struct {
		En string `json:"en"`
	} `json:"value_meaning"`
}

type rawCondition struct {
	Name        string                     `json:"condition_name"`
	ICD10       string                     `json:"icd10-id"`
	Severity    int                        `json:"severity"`
	Symptoms    map[string]json.RawMessage `json:"symptoms"`
	Antecedents map[string]json.RawMessage `json:"antecedents"`
}

// ReadDictionary reads release_evidences.json and release_conditions.json
// (named evName and condName in errors). Every condition's evidences must be
// in the evidence dictionary.
func ReadDictionary(ev io.Reader, evName string, cond io.Reader, condName string) (*Dictionary, error) {
	var evs map[string]rawEvidence
	if err := decodeJSON(ev, &evs); err != nil {
		return nil, fmt.Errorf("%s: %w", evName, err)
	}
	d := &Dictionary{evidences: map[string]Evidence{}, conditions: map[string]Condition{}}
	for key, r := range evs {
		e, err := evidenceOf(key, r)
		if err != nil {
			return nil, fmt.Errorf("%s: evidence %s: %w", evName, key, err)
		}
		d.evidences[key] = e
		d.codes = append(d.codes, key)
	}
	sort.Slice(d.codes, func(i, j int) bool { return codeLess(d.codes[i], d.codes[j]) })
	var conds map[string]rawCondition
	if err := decodeJSON(cond, &conds); err != nil {
		return nil, fmt.Errorf("%s: %w", condName, err)
	}
	for key, r := range conds {
		c, err := d.conditionOf(key, r)
		if err != nil {
			return nil, fmt.Errorf("%s: condition %q: %w", condName, key, err)
		}
		d.conditions[c.Name] = c
		d.names = append(d.names, c.Name)
	}
	sort.Strings(d.names)
	if len(d.evidences) == 0 || len(d.conditions) == 0 {
		return nil, fmt.Errorf("%s, %s: no evidences or no conditions", evName, condName)
	}
	return d, nil
}

func decodeJSON(r io.Reader, v any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the release's JSON: %w", err)
	}
	return nil
}

func evidenceOf(key string, r rawEvidence) (Evidence, error) {
	e := Evidence{Code: key, Group: r.Group, Question: strings.TrimSpace(r.Question), Antecedent: r.Antecedent, Type: r.Type,
		Default: scalarText(r.Default), Meanings: map[string]string{}}
	switch {
	case r.Name != key:
		return e, fmt.Errorf("field name %q differs from its key", r.Name)
	case e.Question == "":
		return e, fmt.Errorf("field question_en: required")
	case r.Type != Binary && r.Type != Categorical && r.Type != MultiChoice:
		return e, fmt.Errorf("field data_type %q, want B, C or M", r.Type)
	case r.Type != Binary && len(r.Values) == 0:
		return e, fmt.Errorf("field possible-values: a %s evidence needs its values", r.Type)
	}
	e.Scale = r.Type != Binary
	for _, raw := range r.Values {
		v := scalarText(raw)
		e.Values = append(e.Values, v)
		if _, err := strconv.Atoi(v); err != nil {
			e.Scale = false
		}
	}
	for v, m := range r.Meanings {
		e.Meanings[v] = m.En
	}
	return e, nil
}

func (d *Dictionary) conditionOf(key string, r rawCondition) (Condition, error) {
	c := Condition{Name: r.Name, ICD10: strings.ToUpper(r.ICD10), Severity: r.Severity}
	if c.Name == "" || c.Name != key {
		return c, fmt.Errorf("field condition_name %q differs from its key", r.Name)
	}
	for _, part := range []struct {
		field string
		codes map[string]json.RawMessage
		into  *[]string
	}{{"symptoms", r.Symptoms, &c.Symptoms}, {"antecedents", r.Antecedents, &c.Antecedents}} {
		for code := range part.codes {
			if _, ok := d.evidences[code]; !ok {
				return c, fmt.Errorf("field %s: unknown evidence %s", part.field, code)
			}
			*part.into = append(*part.into, code)
		}
		sort.Slice(*part.into, func(i, j int) bool { return codeLess((*part.into)[i], (*part.into)[j]) })
	}
	return c, nil
}

// scalarText is a JSON string or number as text ("V_11", "0").
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// codeLess orders codes by their number (E_2 before E_10).
func codeLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "E_"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "E_"))
	if ea != nil || eb != nil || na == nb {
		return a < b
	}
	return na < nb
}

// Evidence returns an evidence by code.
func (d *Dictionary) Evidence(code string) (Evidence, bool) {
	e, ok := d.evidences[code]
	return e, ok
}

// Codes are every evidence code in code order.
func (d *Dictionary) Codes() []string { return d.codes }

// Condition returns a pathology by name.
func (d *Dictionary) Condition(name string) (Condition, bool) {
	c, ok := d.conditions[name]
	return c, ok
}

// Pathologies are the pathology names in byte order: the options a doctor
// chooses among, numbered from 1 in this order.
func (d *Dictionary) Pathologies() []string { return d.names }
