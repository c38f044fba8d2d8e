package medinquire

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// ArenaCase maps one DiagnosisArena record to a native case (docs/corpora.md,
// field by field): the opening is the first sentence's demographics and
// presenting problem; the case information's sentences are patient facts
// tagged by topic (corpus.NarrativeTopics); the physical examination's
// sentences are findings by body system (corpus.FindingSystem); the
// diagnostic tests are tests by name (arenaTests); the final diagnosis is
// the key and the other three options its distractors. No fact, finding or
// opening names the diagnosis (corpus.LeakGuard): such a sentence is dropped
// and such a term in the opening masked, each listed in
// Provenance.Redactions. A test result may name it: a biopsy report does.
func ArenaCase(rec ArenaRecord) (clinic.Case, error) {
	if err := checkArena(rec); err != nil {
		return clinic.Case{}, err
	}
	info := strings.TrimSpace(rec.CaseInformation)
	name, acceptable, guardNames := corpus.DiagnosisNames(rec.FinalDiagnosis, info, rec.PhysicalExamination, rec.DiagnosticTests)
	guard := corpus.NewLeakGuard(guardNames...)
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: arenaCaseID(rec.ID), Condition: corpus.ConditionKey(name),
		Meta:       clinic.CaseMeta{Split: ArenaSource},
		Provenance: clinic.Provenance{Source: ArenaSource, SourceCaseID: strconv.FormatInt(rec.ID, 10), License: ArenaLicense}}
	red := &corpus.Redactor{Guard: guard}
	op := arenaOpening(info)
	c.Patient.Demographics = corpus.ParseDemographics(op.subject)
	c.Patient.Persona = clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}
	c.Patient.OpeningComplaint = red.Mask("patient_view.opening_complaint", op.text)
	c.Patient.Facts = arenaFacts(op, red)
	c.Exam.Findings = arenaFindings(rec.PhysicalExamination, red)
	tests, err := arenaTests(rec.DiagnosticTests)
	if err != nil {
		return clinic.Case{}, err
	}
	c.Exam.Tests = tests
	c.Exam.Catalog = corpus.CatalogNames(tests)
	c.Manager.Diagnosis = clinic.Diagnosis{Name: name, Acceptable: acceptable}
	for _, l := range []string{"A", "B", "C", "D"} {
		if o, _ := rec.Options.option(l); l != rec.RightOption && strings.TrimSpace(o) != "" {
			c.Manager.Distractors = append(c.Manager.Distractors, strings.TrimSpace(o))
		}
	}
	c.Provenance.Redactions = red.Lines
	if err := corpus.Validate(&c); err != nil {
		return clinic.Case{}, err
	}
	return c, nil
}

// checkArena checks the fields a case cannot do without.
func checkArena(rec ArenaRecord) error {
	switch {
	case rec.ID <= 0:
		return corpus.FieldError{Field: "id", Msg: fmt.Sprintf("want a positive integer, got %d", rec.ID)}
	case strings.TrimSpace(rec.CaseInformation) == "":
		return corpus.FieldError{Field: "Case Information", Msg: "required"}
	case strings.TrimSpace(rec.FinalDiagnosis) == "":
		return corpus.FieldError{Field: "Final Diagnosis", Msg: "required"}
	}
	right, ok := rec.Options.option(rec.RightOption)
	switch {
	case !ok:
		return corpus.FieldError{Field: "Right Option", Msg: fmt.Sprintf("want A, B, C or D, got %q", rec.RightOption)}
	case strings.TrimSpace(right) != strings.TrimSpace(rec.FinalDiagnosis):
		return corpus.FieldError{Field: "Options." + rec.RightOption,
			Msg: fmt.Sprintf("the right option %q is not the final diagnosis %q", right, rec.FinalDiagnosis)}
	}
	return nil
}

// arenaFacts are the history sentences as patient facts, h1, h2, ...: the
// opening's background first.
func arenaFacts(op opening, red *corpus.Redactor) []clinic.Fact {
	var facts []clinic.Fact
	add := func(s string, topics []string) {
		if red.Keep("patient_view.facts", s) {
			facts = append(facts, clinic.Fact{ID: "h" + strconv.Itoa(len(facts)+1), Text: s, Topics: topics})
		}
	}
	if op.background != "" {
		topics := corpus.ComplaintTopics(op.background, op.text)
		if !slices.Contains(topics, clinic.TopicPastHistory) {
			topics = append(topics, clinic.TopicPastHistory)
		}
		add(op.background, topics)
	}
	for _, s := range op.facts {
		add(s, corpus.ComplaintTopics(s, op.text))
	}
	return facts
}

// arenaFindings are the examination's sentences (list entries split) by body system.
func arenaFindings(pe string, red *corpus.Redactor) []clinic.Finding {
	var sentences []string
	for _, it := range corpus.SplitList(pe) {
		for _, s := range corpus.Sentences(it.String()) {
			if !strings.HasSuffix(s, ":") { // a bare heading ("Examination revealed:") says nothing
				sentences = append(sentences, s)
			}
		}
	}
	return red.Findings(sentences)
}

// opening is the first thing the patient says and the history sentences left.
type opening struct {
	subject string   // the demographic noun phrase: "A woman in her early 70s"
	text    string   // the opening complaint
	facts   []string // every history sentence, less what the opening says
	// background is what the first sentence says between its subject and
	// the presenting verb ("... with a 5-year history of SLE"): past
	// history, whatever its words.
	background string
}

var (
	// subjectHead is the noun that ends a case report's opening subject,
	// with an age clause after it ("a woman in her early 70s").
	subjectHead = regexp.MustCompile(`(?i)\b(man|woman|men|women|male|female|boy|girl|patient|individual|person|neonate|newborn|infant|child|adolescent|baby|toddler|gentleman|lady|teenager|adult)(\s+(patient|adolescent|infant|child|neonate))?\b(\s+(in|during)\s+(his|her|their|the)\s+(early\s+|mid-?\s*|late\s+)?(\d+s|teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties|\w+\s+decade(\s+of\s+life)?)|\s+aged\s+\d+(\s+years)?)?`)
	// presenting is the verb that brings the problem to the doctor.
	presenting = regexp.MustCompile(`(?i)\b(presented|presents|presenting|was admitted|was hospitali[sz]ed|was referred|reported|complained|came|was brought|sought|was evaluated|was seen)\b`)
	// pronounPresenting opens a second sentence that says the problem ("She presented with ...").
	pronounPresenting = regexp.MustCompile(`(?i)\b(he|she|they|the patient)\s+(presented|was admitted|was referred|reported|complained)\b`)
)

// arenaOpening reads the opening from the case information: the subject of
// the first sentence and its presenting verb phrase ("A woman in her early
// 70s presented with a solitary, asymptomatic lump on her scalp."), leaving
// out what stands between them (past history, occupation: facts to earn),
// which stays a fact; a first sentence without a presenting verb takes it from
// the second ("From age 13, he presented with ..."), which stays a fact too,
// or opens as written. Every other sentence is a fact.
func arenaOpening(info string) opening {
	ss := corpus.Sentences(info)
	op := readOpening(ss)
	if len(op.facts) == 0 && op.background == "" {
		op.facts = ss[:1] // a one-sentence history is also the patient's one fact
	}
	return op
}

// readOpening is arenaOpening over the sentences.
func readOpening(ss []string) opening {
	first := ss[0]
	op := opening{subject: first, text: first, facts: ss[1:]}
	head := subjectHead.FindStringIndex(first)
	if head == nil || len(strings.Fields(first[:head[0]])) > 8 {
		return op
	}
	op.subject = strings.TrimSpace(first[:head[1]])
	rest := first[head[1]:]
	if v := presenting.FindStringIndex(rest); v != nil {
		op.text = op.subject + " " + rest[v[0]:]
		op.facts = ss[1:]
		if between := strings.Trim(rest[:v[0]], " ,"); len(strings.Fields(between)) >= 2 {
			op.background = op.subject + " " + between + "."
		}
		return op
	}
	if len(ss) > 1 {
		if v := pronounPresenting.FindStringSubmatchIndex(ss[1]); v != nil {
			op.text = op.subject + " " + ss[1][v[4]:]
			op.facts = ss // the second sentence keeps what stands before its verb ("From age 13, ...")
		}
	}
	return op
}
