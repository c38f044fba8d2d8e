package ddxplus

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// Source is the provenance source of every DDXPlus case, and License the
// release's licence (data/LICENSE.txt).
const (
	Source  = "ddxplus"
	License = "CC-BY-4.0"
)

// Record is the benchmark's member of a case's exam view: the patient's
// whole evidence profile decoded to English, and the evidence the patient
// opens with. Only the environment reads it.
type Record struct {
	Findings []Finding `json:"evidences"`
	Initial  string    `json:"initial_evidence"`
}

// Key is the benchmark's member of a case's answer key: the ground-truth
// differential of the release, most probable first.
type Key struct {
	Differential []Weighted `json:"differential"`
}

// Weighted is one pathology of a differential with its probability.
type Weighted struct {
	Pathology   string  `json:"pathology"`
	Probability float64 `json:"probability"`
}

// CaseFields are the members the benchmark adds to a case's views.
func (Benchmark) CaseFields() (exam, manager []string) {
	return []string{"evidences", "initial_evidence"}, []string{"differential"}
}

// RecordOf reads a case's record; a member of the wrong shape reads as none
// (ValidateCase refuses it).
func RecordOf(c *clinic.Case) Record {
	var r Record
	_ = c.Exam.Ext.Decode(&r) // checked by ValidateCase
	return r
}

// KeyOf reads a case's differential.
func KeyOf(c *clinic.Case) Key {
	var k Key
	_ = c.Manager.Ext.Decode(&k) // checked by ValidateCase
	return k
}

// Patient is one row of the release's patients file, decoded.
type Patient struct {
	Age          int
	Sex          string // M or F
	Pathology    string
	Findings     []Finding
	Initial      string
	Differential []Weighted
}

// NewCase is a patient as a case: the initial evidence in the patient's
// words opens it, every evidence is a fact of the patient view (the text
// hidden from a learner until revealed), the decoded profile is the exam
// view's record and the pathology with its differential the answer key.
func (d *Dictionary) NewCase(id, sourceID string, p Patient) (clinic.Case, error) {
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: id, Condition: corpus.ConditionKey(p.Pathology),
		Meta: clinic.CaseMeta{Split: Source}, Provenance: clinic.Provenance{Source: Source, SourceCaseID: sourceID, License: License}}
	c.Patient.Demographics = demographics(p.Age, p.Sex)
	c.Patient.Persona = clinic.Persona{Personality: "neutral", Language: "advanced", Recall: "high", Clarity: "clear"}
	for _, f := range p.Findings {
		e := d.evidences[f.Code]
		topics := corpus.InferTopics(f.Question, clinic.TopicSystems)
		if e.Antecedent {
			topics = corpus.InferTopics(f.Question, clinic.TopicPastHistory)
		}
		c.Patient.Facts = append(c.Patient.Facts, clinic.Fact{ID: f.Code, Text: f.Line(), Topics: topics})
		if f.Code == p.Initial {
			c.Patient.OpeningComplaint = f.Statement()
		}
	}
	cond := d.conditions[p.Pathology]
	c.Manager.Diagnosis = clinic.Diagnosis{Name: p.Pathology, ICD10: cond.ICD10}
	var err error
	if c.Exam.Ext, err = c.Exam.Ext.Put(Record{Findings: p.Findings, Initial: p.Initial}); err != nil {
		return c, err
	}
	if c.Manager.Ext, err = c.Manager.Ext.Put(Key{Differential: p.Differential}); err != nil {
		return c, err
	}
	return c, nil
}

// demographics spells age and sex as the doctor sees them at the door.
func demographics(age int, sex string) clinic.Demographics {
	d := clinic.Demographics{Age: age, Sex: map[string]string{"F": "female", "M": "male"}[strings.ToUpper(sex)]}
	switch {
	case age < 1:
		d.Text = "under one year old, " + d.Sex
	default:
		d.Text = fmt.Sprintf("%d-year-old %s", age, d.Sex)
	}
	return d
}
