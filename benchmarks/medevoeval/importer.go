package medevoeval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// Source is the default provenance source of imported MedEvoEval cases.
const Source = "medevoeval"

var _ corpus.Importer = Benchmark{}

// Formats is MedEvoEval's three-view case format.
func (Benchmark) Formats() []corpus.Format {
	return []corpus.Format{{Name: "medevoeval", Doc: "MedEvoEval three-view cases: a JSON array, one object, or one object a line",
		Read: func(r io.Reader, name string, opt corpus.Options) ([]clinic.Case, []corpus.Skipped, error) {
			if opt.SkipInvalid {
				return nil, nil, fmt.Errorf("corpus import medevoeval: --skip-invalid is not supported: every record must convert")
			}
			cases, err := Import(r, name)
			return cases, nil, err
		}}}
}

// medEvoCase is the MedEvoEval three-view case. Demographics, history facts and
// test results are accepted both as text and as objects, since published files
// use both shapes.
type medEvoCase struct {
	CaseID  string `json:"case_id"`
	Source  string `json:"source"`
	Patient struct {
		Demographics corpus.Node   `json:"demographics"`
		Complaint    string        `json:"chief_complaint"`
		Facts        []corpus.Node `json:"history_facts"`
	} `json:"patient_view"`
	Exam struct {
		Tests   corpus.Node `json:"tests"`
		Catalog []string    `json:"test_catalog"`
	} `json:"exam_view"`
	Manager struct {
		Truth struct {
			Diagnosis struct {
				Name       string   `json:"display_name"`
				Acceptable []string `json:"acceptable_names"`
			} `json:"diagnosis"`
			Evidence struct {
				Points []string `json:"key_points"`
			} `json:"evidence_rubric"`
			Management struct {
				Points []string `json:"key_points"`
			} `json:"management_rubric"`
		} `json:"ground_truth"`
	} `json:"manager_view"`
}

// Import reads MedEvoEval cases: a JSON array, a single object, or one
// object a line. Errors name the record (and line for JSONL) and the field.
func Import(r io.Reader, name string) ([]clinic.Case, error) {
	data, err := corpus.ReadWhole(r, name)
	if err != nil {
		return nil, err
	}
	recs, err := records(data, name)
	if err != nil {
		return nil, err
	}
	var cases []clinic.Case
	var extra []catalog.Item
	seen := map[string]string{}
	for _, rc := range recs {
		var m medEvoCase
		if err := json.Unmarshal(rc.raw, &m); err != nil {
			return nil, fmt.Errorf("%s: %s", rc.where, corpus.DescribeJSONError(err))
		}
		c, items, err := convertMedEvo(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rc.where, err)
		}
		if first, ok := seen[c.ID]; ok {
			return nil, fmt.Errorf("%s: field case_id: duplicate case ID %q (first at %s)", rc.where, c.ID, first)
		}
		seen[c.ID] = rc.where
		cases = append(cases, c)
		extra = append(extra, items...)
	}
	names := catalog.Default().Extend(extra).Names()
	for i := range cases {
		if len(cases[i].Exam.Catalog) == 0 {
			cases[i].Exam.Catalog = names
		}
		if err := corpus.Validate(&cases[i]); err != nil {
			return nil, fmt.Errorf("%s: case %q: %w", name, cases[i].ID, err)
		}
	}
	return cases, nil
}

// record is one record of a MedEvoEval file and where it is.
type record struct {
	where string
	raw   []byte
}

// records splits a MedEvoEval file into its records: the items of a JSON
// array, or the objects one after another (one a line, or one alone).
func records(data []byte, name string) ([]record, error) {
	var recs []record
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, fmt.Errorf("%s: no cases", name)
	case trimmed[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			return nil, fmt.Errorf("%s: %s", name, corpus.DescribeJSONError(err))
		}
		for i, a := range arr {
			recs = append(recs, record{fmt.Sprintf("%s: record %d", name, i+1), a})
		}
	default:
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for dec.More() {
			var one json.RawMessage
			start := int(dec.InputOffset())
			for start < len(trimmed) && (trimmed[start] == '\n' || trimmed[start] == ' ' || trimmed[start] == '\t' || trimmed[start] == '\r') {
				start++
			}
			line := 1 + bytes.Count(trimmed[:start], []byte("\n"))
			if err := dec.Decode(&one); err != nil {
				return nil, fmt.Errorf("%s:%d: %s", name, line, corpus.DescribeJSONError(err))
			}
			recs = append(recs, record{fmt.Sprintf("%s:%d", name, line), one})
		}
	}
	return recs, nil
}

func convertMedEvo(m medEvoCase) (clinic.Case, []catalog.Item, error) {
	switch {
	case strings.TrimSpace(m.CaseID) == "":
		return clinic.Case{}, nil, corpus.FieldError{Field: "case_id", Msg: "required"}
	case strings.TrimSpace(m.Patient.Complaint) == "":
		return clinic.Case{}, nil, corpus.FieldError{Field: "patient_view.chief_complaint", Msg: "required"}
	case strings.TrimSpace(m.Manager.Truth.Diagnosis.Name) == "":
		return clinic.Case{}, nil, corpus.FieldError{Field: "manager_view.ground_truth.diagnosis.display_name", Msg: "required"}
	case len(m.Patient.Facts) == 0:
		return clinic.Case{}, nil, corpus.FieldError{Field: "patient_view.history_facts", Msg: "at least one fact is required"}
	}
	src := m.Source
	if src == "" {
		src = Source
	}
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: m.CaseID, Condition: corpus.ConditionKey(m.Manager.Truth.Diagnosis.Name),
		Provenance: clinic.Provenance{Source: src, SourceCaseID: m.CaseID}}
	c.Meta.Split = "medevoeval"
	d := m.Patient.Demographics
	switch {
	case d.IsObject():
		text := d.Text()
		c.Patient.Demographics = corpus.ParseDemographics(text)
		if a, ok := d.Get("age"); ok {
			c.Patient.Demographics.Age, _ = strconv.Atoi(scalar(a))
		}
		if s, ok := d.Get("sex"); ok {
			c.Patient.Demographics.Sex = strings.ToLower(scalar(s))
		}
	default:
		c.Patient.Demographics = corpus.ParseDemographics(d.Text())
	}
	c.Patient.OpeningComplaint = strings.TrimSpace(m.Patient.Complaint)
	c.Patient.Persona = clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}
	for i, f := range m.Patient.Facts {
		id := "f" + strconv.Itoa(i+1)
		var text, topic string
		switch sc, ok := f.Scalar(); {
		case ok:
			text = sc
		case f.IsObject():
			for _, k := range []string{"text", "fact", "content", "value"} {
				if v, ok := f.Get(k); ok {
					text = v.Text()
					break
				}
			}
			if v, ok := f.Get("id"); ok && scalar(v) != "" {
				id = scalar(v)
			}
			for _, k := range []string{"topic", "category"} {
				if v, ok := f.Get(k); ok {
					topic = normaliseTopic(v.Text())
				}
			}
		}
		if strings.TrimSpace(text) == "" {
			return clinic.Case{}, nil, corpus.FieldError{Field: fmt.Sprintf("patient_view.history_facts[%d]", i), Msg: "no text"}
		}
		c.Patient.Facts = append(c.Patient.Facts, clinic.Fact{ID: id, Text: text, Topics: corpus.InferTopics(text, topic)})
	}
	var items []catalog.Item
	keys, vals := m.Exam.Tests.Members()
	for i, k := range keys {
		name, aliases := corpus.TestName(k)
		v := vals[i]
		ab := false
		for _, lf := range v.Leaves(corpus.HumanKey(k)) {
			ab = ab || corpus.AbnormalLeaf(lf[0], lf[1])
		}
		c.Exam.Tests = append(c.Exam.Tests, clinic.TestValue{Name: name, Aliases: aliases, Result: v.Text(), Abnormal: ab})
		items = append(items, catalog.Item{Name: name, Aliases: aliases, Category: catalog.Infer(name)})
	}
	for _, n := range m.Exam.Catalog {
		name, _ := corpus.TestName(n)
		c.Exam.Catalog = append(c.Exam.Catalog, name)
		items = append(items, catalog.Item{Name: name, Category: catalog.Infer(name)})
	}
	t := m.Manager.Truth
	c.Manager.Diagnosis = clinic.Diagnosis{Name: t.Diagnosis.Name, Acceptable: t.Diagnosis.Acceptable}
	c.Manager.Evidence = t.Evidence.Points
	c.Manager.Management = t.Management.Points
	return c, items, nil
}

// normaliseTopic maps a source topic label onto ours; unknown labels give "".
func normaliseTopic(s string) string {
	k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_")
	switch k {
	case "pmh", "past_medical_history", "history", "past_history":
		return clinic.TopicPastHistory
	case "meds", "medication", "medications", "drug_history":
		return clinic.TopicMedications
	case "ros", "review_of_systems":
		return clinic.TopicSystems
	case "social_history":
		return clinic.TopicSocial
	case "family_history":
		return clinic.TopicFamily
	case "associated_symptoms", "symptoms":
		return clinic.TopicAssociated
	}
	if slices.Contains(clinic.Topics, k) {
		return k
	}
	return ""
}

// scalar is n's text when it is a scalar, "" otherwise.
func scalar(n corpus.Node) string {
	s, _ := n.Scalar()
	return s
}
