package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// AgentClinicNEJMSource is the provenance source of imported AgentClinic NEJM cases.
const AgentClinicNEJMSource = "agentclinic-nejm"

// agentClinicNEJMCase is one line of AgentClinic's NEJM variant (NEJM Image
// Challenge cases rewritten for AgentClinic).
type agentClinicNEJMCase struct {
	Question      string       `json:"question"`
	ImageURL      string       `json:"image_url"`
	PatientInfo   string       `json:"patient_info"`
	PhysicalExams string       `json:"physical_exams"`
	Answers       []nejmAnswer `json:"answers"`
}

type nejmAnswer struct {
	Text    string `json:"text"`
	Correct bool   `json:"correct"`
}

// Import rules for the NEJM variant (documented in docs/corpora.md):
//
//   - patient_info (second person, written for an actor) is the history:
//     its instructions to the actor are dropped; what it says the
//     examination found moves to the exam view; every other sentence is a
//     fact tagged by topic (NarrativeTopics). The opening is its first
//     sentence, with the next where the first says only who the patient is,
//     in the first person ("I am a 55-year-old woman ...").
//   - question (the image challenge: history, examination and often the
//     decisive finding) never reaches the doctor or the patient: only its
//     examination sentences are kept, as findings of the exam view.
//   - physical_exams (test results) are tests by name (GroupTests).
//   - answers: the correct one is the diagnosis, the others its distractors;
//     a record with none correct, or more than one, is an error.
//   - image_url: every case shows an image its text does not hold; it is
//     imported as text, with the image's address in the provenance, or left
//     out where the import drops image cases.
//
// No fact, finding or opening names the diagnosis (LeakGuard), as for
// DiagnosisArena.

// importAgentClinicNEJM reads the NEJM variant, one case a line, with IDs
// "agentclinic-nejm-NNN" (line numbers).
func importAgentClinicNEJM(r io.Reader, name string, o Options) ([]clinic.Case, []Skipped, error) {
	var cases []clinic.Case
	var skipped []Skipped
	images := 0
	err := EachLine(r, name, func(line int, raw []byte) error {
		c, err := nejmLine(raw, line)
		switch {
		case err != nil && !o.SkipInvalid:
			return fmt.Errorf("%s:%d: %w", name, line, err)
		case err != nil:
			skipped = append(skipped, Skipped{File: name, Line: line, Reason: err.Error()})
		case c.Provenance.ImageURL != "" && o.DropImageCases:
			images++
		default:
			cases = append(cases, c)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(cases) == 0 {
		return nil, skipped, fmt.Errorf("%s: no cases (%d lines skipped, %d image cases dropped)", name, len(skipped), images)
	}
	return cases, skipped, nil
}

// nejmLine converts and validates one line.
func nejmLine(raw []byte, line int) (clinic.Case, error) {
	var n agentClinicNEJMCase
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return clinic.Case{}, fmt.Errorf("%s", DescribeJSONError(err))
	}
	c, err := convertNEJM(n, line)
	if err != nil {
		return clinic.Case{}, err
	}
	if err := Validate(&c); err != nil {
		return clinic.Case{}, fmt.Errorf("case %q: %w", c.ID, err)
	}
	return c, nil
}

// nejmAnswers returns the correct answer and the others.
func nejmAnswers(as []nejmAnswer) (string, []string, error) {
	if len(as) == 0 {
		return "", nil, FieldError{"answers", "required: the answer options, one of them correct"}
	}
	var right string
	var wrong []string
	for i, a := range as {
		switch {
		case strings.TrimSpace(a.Text) == "":
			return "", nil, FieldError{fmt.Sprintf("answers[%d].text", i), "required"}
		case a.Correct && right != "":
			return "", nil, FieldError{fmt.Sprintf("answers[%d].correct", i), fmt.Sprintf("a second correct answer (%q is already)", right)}
		case a.Correct:
			right = strings.TrimSpace(a.Text)
		default:
			wrong = append(wrong, strings.TrimSpace(a.Text))
		}
	}
	if right == "" {
		return "", nil, FieldError{"answers", "no answer is marked correct"}
	}
	return right, wrong, nil
}

func convertNEJM(n agentClinicNEJMCase, line int) (clinic.Case, error) {
	dx, wrong, err := nejmAnswers(n.Answers)
	if err != nil {
		return clinic.Case{}, err
	}
	if strings.TrimSpace(n.PatientInfo) == "" {
		return clinic.Case{}, FieldError{"patient_info", "required"}
	}
	name, acceptable, guardNames := DiagnosisNames(dx, n.PatientInfo, n.Question)
	guard := NewLeakGuard(guardNames...)
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: fmt.Sprintf("agentclinic-nejm-%03d", line), Condition: ConditionKey(name),
		Meta: clinic.CaseMeta{Split: "agentclinic-nejm"},
		Provenance: clinic.Provenance{Source: AgentClinicNEJMSource, SourceCaseID: "line " + strconv.Itoa(line), License: "MIT",
			ImageURL: strings.TrimSpace(n.ImageURL)}}
	c.Patient.Persona = clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}
	w := &Redactor{Guard: guard}
	history, examined := nejmHistory(n.PatientInfo)
	if len(history) == 0 {
		return clinic.Case{}, FieldError{"patient_info", "holds no history once the instructions to the actor are left out"}
	}
	opening, facts := nejmOpening(history)
	c.Patient.Demographics = ParseDemographics(opening)
	c.Patient.Demographics.Text = ""
	c.Patient.OpeningComplaint = w.Mask("patient_view.opening_complaint", opening)
	for _, s := range facts {
		if w.Keep("patient_view.facts", s) {
			c.Patient.Facts = append(c.Patient.Facts, clinic.Fact{ID: "h" + strconv.Itoa(len(c.Patient.Facts)+1), Text: s, Topics: ComplaintTopics(s, opening)})
		}
	}
	c.Exam.Findings = w.Findings(append(examined, nejmExamination(n.Question)...))
	if !noResults.MatchString(n.PhysicalExams) {
		c.Exam.Tests = GroupTests(TextTestItems(n.PhysicalExams))
	}
	c.Exam.Catalog = CatalogNames(c.Exam.Tests)
	c.Manager.Diagnosis = clinic.Diagnosis{Name: name, Acceptable: acceptable}
	c.Manager.Distractors = wrong
	c.Provenance.Redactions = w.Lines
	return c, nil
}

var (
	// actorLine is a sentence of patient_info that instructs the actor
	// rather than telling the history.
	actorLine = regexp.MustCompile(`(?i)\b(your role|patient actor|as a patient|the patient actor|portray|remember,|your character|you need to|need to know|need to convey|here's|here is|minimal information|you are not aware|you're not aware|you are aware|you don't know|you do not know|you haven't been told|you have not been told|not been informed|haven't seen any|have not seen any|haven't been keeping track|not aware of (your|the|any)|your knowledge is)`)
	// examinedLine says what an examination found.
	examinedLine = regexp.MustCompile(`(?i)\b(examination|examined|upon examination|on examination|the doctor noted|specialist,? they found)\b`)
	// noResults is a physical_exams field that says it has none.
	noResults = regexp.MustCompile(`(?i)(does not (include|contain|mention)|no (specific )?instrument readings)`)
	// markdown is emphasis and a heading's colon that AgentClinic's texts carry.
	markdown = strings.NewReplacer("**", "", "__", "")
)

// nejmHistory splits patient_info into history sentences (headings and
// instructions to the actor left out) and what it says the examination
// found.
func nejmHistory(info string) (history, examined []string) {
	for _, it := range SplitList(markdown.Replace(info)) {
		text := it.Text
		if it.Label != "" && (len(strings.Fields(it.Label)) > 4 || strings.ContainsAny(it.Label, ",")) {
			text = it.String() // not a heading: "For your role as a patient, you are ...: ..."
		}
		for _, s := range Sentences(text) {
			s = strings.TrimSpace(strings.TrimLeft(s, "-*• "))
			if strings.HasSuffix(s, ":") && len(strings.Fields(s)) > 6 {
				s = strings.TrimSuffix(s, ":") + "." // "... for the past few months: 1. ..."
			}
			s = strings.TrimPrefix(s, "Mention ")
			switch {
			case s == "" || strings.HasSuffix(s, ":"):
			case examinedLine.MatchString(s):
				examined = append(examined, s)
			case actorLine.MatchString(s):
				if rest := afterActorLead(s); rest != "" {
					history = append(history, rest)
				}
			default:
				history = append(history, s)
			}
		}
	}
	return history, examined
}

// actorLead is an instruction that opens a sentence of history: "For your
// role as a patient, you are a 55-year-old woman ..." keeps "you are ...".
var actorLead = regexp.MustCompile(`(?i)^(for your role as a patient( actor)?|as a patient actor|for the patient actor)[^,:]*[,:]\s*`)

func afterActorLead(s string) string {
	if m := actorLead.FindStringIndex(s); m != nil {
		rest := strings.TrimSpace(s[m[1]:])
		if !actorLine.MatchString(rest) {
			return strings.ToUpper(rest[:1]) + rest[1:]
		}
	}
	return ""
}

// nejmOpening is the first history sentence in the first person, with the
// next one where the first only says who the patient is ("You are a
// 28-year-old woman."); the rest are facts.
func nejmOpening(history []string) (string, []string) {
	n := 1
	if len(history) > 1 && len(strings.Fields(history[0])) <= 8 && whoOnly.MatchString(history[0]) {
		n = 2
	}
	var parts []string
	for _, s := range history[:n] {
		fp, _ := textmatch.FirstPerson(s)
		parts = append(parts, fp)
	}
	facts := history[n:]
	if len(facts) == 0 {
		facts = history[:n]
	}
	return strings.Join(parts, " "), facts
}

// whoOnly is a sentence that only says who the patient is.
var whoOnly = regexp.MustCompile(`(?i)^you are an? [\w\s-]*?\b(man|woman|boy|girl|male|female|person|patient)\.?$`)

// nejmExamination keeps the question's examination sentences.
func nejmExamination(question string) []string {
	var out []string
	for _, s := range Sentences(question) {
		if examinedLine.MatchString(s) && !strings.HasSuffix(strings.TrimSpace(s), "?") {
			out = append(out, s)
		}
	}
	return out
}
