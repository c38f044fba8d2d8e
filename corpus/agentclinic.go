package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// AgentClinicSource is the provenance source of imported AgentClinic cases.
const AgentClinicSource = "agentclinic-medqa"

// Import rules for AgentClinic OSCE cases (documented in docs/corpora.md):
//
//   - Patient_Actor: History, Past_Medical_History, Social_History, Review_of_Systems
//     and any medication or family field are split into sentences; each sentence is
//     a fact tagged by cue words (InferTopics) on top of its section's topic.
//     Secondary symptoms are "associated" facts. Texts such as "Information not
//     provided" are dropped. The opening complaint is the primary symptom; a case
//     without one (an asymptomatic screening visit has "Symptoms": {}) opens with
//     the first sentence of its History, as written (the importer rewrites no
//     text into the first person anywhere).
//   - Physical_Examination_Findings: each top-level key maps to a body system by
//     its name (Vital_Signs -> vitals, Neurological_Examination -> neurological, ...);
//     unknown keys go to "general". The finding text is the flattened object.
//   - Test_Results: a generic container (Blood_Tests, Imaging, Laboratory_Tests, ...)
//     is split: each child becomes its own catalog item, and scalar children
//     (analytes such as WBC) also stay in the container's combined result. Any other
//     key is one item whose result is its flattened object. Names are normalised
//     with catalog.Key and take the canonical name of a built-in catalog item
//     when one matches. Every case gets the same corpus-wide catalog (built-in items
//     plus every imported test name), so the catalog does not hint at a diagnosis.
//   - Correct_Diagnosis: the display name; a bracketed abbreviation becomes an
//     acceptable name.
//   - Evidence key points: every abnormal leaf of the test results and the physical
//     examination, as "<name>: <value>", tests first, at most 8 (see abnormalLeaf).
//     There are no management key points (the plan is not scored), no must-ask
//     topics, no referral information.
type agentClinicCase struct {
	OSCE struct {
		Patient  Node   `json:"Patient_Actor"`
		Physical Node   `json:"Physical_Examination_Findings"`
		Tests    Node   `json:"Test_Results"`
		Dx       string `json:"Correct_Diagnosis"`
	} `json:"OSCE_Examination"`
}

// MaxImportedEvidence caps the derived evidence key points of one imported case.
const MaxImportedEvidence = 8

// Skipped is an input line that an import left out, with the reason.
type Skipped struct {
	File   string
	Line   int
	Reason string
}

// String is the line as a command prints it: FILE:LINE: reason.
func (s Skipped) String() string { return fmt.Sprintf("%s:%d: %s", s.File, s.Line, s.Reason) }

// ImportAgentClinic reads AgentClinic OSCE JSONL and returns native cases with
// IDs "agentclinic-NNN" (line numbers). It is all or nothing: the first invalid
// line is an error naming the file, the line and the field.
func ImportAgentClinic(r io.Reader, name string) ([]clinic.Case, error) {
	cases, _, err := importAgentClinic(r, name, false)
	return cases, err
}

// ImportAgentClinicValid is ImportAgentClinic that leaves out every invalid line
// (malformed JSON, a missing required field, a case that fails Validate) and
// returns those lines with their reasons. It fails only when the input cannot be
// read or holds no valid case.
func ImportAgentClinicValid(r io.Reader, name string) ([]clinic.Case, []Skipped, error) {
	return importAgentClinic(r, name, true)
}

func importAgentClinic(r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []Skipped, error) {
	var cases []clinic.Case
	var extra []catalog.Item
	var skipped []Skipped
	// A line that is not text stops the import even with skipInvalid: no
	// line of such a file can be trusted.
	err := readLines(r, name, func(line int, raw []byte) error {
		c, items, reason := importAgentClinicLine(raw, line)
		if reason != "" {
			if !skipInvalid {
				return errors.New(reason)
			}
			skipped = append(skipped, Skipped{File: name, Line: line, Reason: reason})
			return nil
		}
		cases = append(cases, c)
		// Only valid cases add tests to the shared catalog: a skipped line leaves no trace.
		extra = append(extra, items...)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(cases) == 0 {
		if len(skipped) > 0 {
			return nil, skipped, fmt.Errorf("%s: no valid cases (%d lines skipped)", name, len(skipped))
		}
		return nil, nil, fmt.Errorf("%s: no cases", name)
	}
	names := catalog.Default().Extend(extra).Names()
	for i := range cases {
		cases[i].Exam.Catalog = names
	}
	return cases, skipped, nil
}

// importAgentClinicLine converts and validates one line; a non-empty reason says
// why the line is not a valid case.
func importAgentClinicLine(raw []byte, line int) (clinic.Case, []catalog.Item, string) {
	var ac agentClinicCase
	if err := json.Unmarshal(raw, &ac); err != nil {
		return clinic.Case{}, nil, DescribeJSONError(err)
	}
	c, items, err := convertAgentClinic(ac, line)
	if err != nil {
		return clinic.Case{}, nil, err.Error()
	}
	if err := Validate(&c); err != nil {
		return clinic.Case{}, nil, fmt.Sprintf("case %q: %v", c.ID, err)
	}
	return c, items, ""
}

func convertAgentClinic(ac agentClinicCase, line int) (clinic.Case, []catalog.Item, error) {
	o := ac.OSCE
	if o.Patient.kind != 'o' {
		return clinic.Case{}, nil, FieldError{"OSCE_Examination.Patient_Actor", "required object"}
	}
	if strings.TrimSpace(o.Dx) == "" {
		return clinic.Case{}, nil, FieldError{"OSCE_Examination.Correct_Diagnosis", "required"}
	}
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: fmt.Sprintf("agentclinic-%03d", line),
		Provenance: clinic.Provenance{Source: AgentClinicSource, SourceCaseID: "line " + strconv.Itoa(line), License: "MIT"}}
	c.Meta.Split = "agentclinic"

	pa := o.Patient
	demo, _ := pa.Get("Demographics")
	c.Patient.Demographics = ParseDemographics(demo.Text())
	c.Patient.Persona = clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}
	complaint, err := openingComplaint(pa)
	if err != nil {
		return clinic.Case{}, nil, err
	}
	c.Patient.OpeningComplaint = complaint
	c.Patient.Facts = patientFacts(pa)
	findings, examLeaves := examFindings(o.Physical)
	c.Exam.Findings = findings
	var tt testTable
	tt.read(o.Tests)
	c.Exam.Tests = tt.values()

	dx, alias := splitAbbreviation(o.Dx)
	c.Manager.Diagnosis = clinic.Diagnosis{Name: dx, Acceptable: alias}
	for _, lf := range append(tt.leaves, examLeaves...) {
		if len(c.Manager.Evidence) == MaxImportedEvidence {
			break
		}
		c.Manager.Evidence = append(c.Manager.Evidence, lf.name+": "+lf.value)
	}
	c.Condition = ConditionKey(dx)
	return c, tt.items, nil
}

// patientFacts are the patient actor's sections as facts, one per sentence,
// the symptoms one per listed symptom; demographics are not facts.
func patientFacts(pa Node) []clinic.Fact {
	var facts []clinic.Fact
	add := func(text, section string) {
		if uninformative(text) {
			return
		}
		facts = append(facts, clinic.Fact{ID: "f" + strconv.Itoa(len(facts)+1), Text: text, Topics: InferTopics(text, section)})
	}
	for i, k := range pa.keys {
		v := pa.vals[i]
		switch k {
		case "Demographics":
			continue
		case "Symptoms":
			if sec, ok := v.Get("Secondary_Symptoms"); ok {
				for _, s := range sec.Leaves("") {
					add(s[1], clinic.TopicAssociated)
				}
			}
			for j, sk := range v.keys {
				if sk != "Primary_Symptom" && sk != "Secondary_Symptoms" {
					add(v.vals[j].Text(), clinic.TopicAssociated)
				}
			}
			continue
		}
		section := sectionTopic(k)
		for _, s := range Sentences(v.Text()) {
			add(s, section)
		}
	}
	return facts
}

// examFindings are the physical examination's sections as one finding per
// system (sections of one system joined), with their abnormal leaves.
func examFindings(physical Node) ([]clinic.Finding, []evidenceLeaf) {
	var findings []clinic.Finding
	var leaves []evidenceLeaf
	for i, k := range physical.keys {
		v := physical.vals[i]
		sys := examSystem(k)
		text := v.Text()
		if text == "" {
			continue
		}
		abnormal := false
		for _, lf := range v.Leaves(HumanKey(k)) {
			if AbnormalLeaf(lf[0], lf[1]) {
				abnormal = true
				leaves = append(leaves, evidenceLeaf{name: lf[0], value: lf[1], exam: true})
			}
		}
		if j := findingIndex(findings, sys); j >= 0 {
			findings[j].Text += "; " + text
			findings[j].Abnormal = findings[j].Abnormal || abnormal
		} else {
			findings = append(findings, clinic.Finding{System: sys, Text: text, Abnormal: abnormal})
		}
	}
	return findings, leaves
}

// testTable gathers a case's test results by canonical name, in first-seen
// order, with the catalog items they add and their abnormal leaves.
type testTable struct {
	byName map[string]*clinic.TestValue
	order  []string
	items  []catalog.Item
	leaves []evidenceLeaf
}

func (tt *testTable) add(rawName, result string, abnormal bool) {
	name, aliases := TestName(rawName)
	if name == "" || uninformative(result) {
		return
	}
	if t, ok := tt.byName[name]; ok {
		t.Result += "; " + result
		t.Abnormal = t.Abnormal || abnormal
		return
	}
	if tt.byName == nil {
		tt.byName = map[string]*clinic.TestValue{}
	}
	tt.byName[name] = &clinic.TestValue{Name: name, Aliases: aliases, Result: result, Abnormal: abnormal}
	tt.order = append(tt.order, name)
	tt.items = append(tt.items, catalog.Item{Name: name, Aliases: aliases, Category: catalog.Infer(name)})
}

// abnormal records v's abnormal leaves and says whether it had one.
func (tt *testTable) abnormal(k string, v Node) bool {
	ab := false
	for _, lf := range v.Leaves(HumanKey(k)) {
		if AbnormalLeaf(lf[0], lf[1]) {
			ab = true
			tt.leaves = append(tt.leaves, evidenceLeaf{name: lf[0], value: lf[1]})
		}
	}
	return ab
}

// read adds every test of the Test_Results section; a container (a panel
// such as "Blood_Tests") adds each member and, when it has scalar members,
// the panel itself with their joined values.
func (tt *testTable) read(tests Node) {
	for i, k := range tests.keys {
		v := tests.vals[i]
		if !isContainer(k) || v.kind != 'o' {
			tt.add(k, v.Text(), tt.abnormal(k, v))
			continue
		}
		var scalars []string
		anyAbnormal := false
		for j, ck := range v.keys {
			cv := v.vals[j]
			ab := tt.abnormal(ck, cv)
			anyAbnormal = anyAbnormal || ab
			if cv.kind == 's' {
				scalars = append(scalars, HumanKey(ck)+": "+cv.Text())
			}
			tt.add(ck, cv.Text(), ab)
		}
		if len(scalars) > 0 {
			tt.add(k, strings.Join(scalars, "; "), anyAbnormal)
		}
	}
}

func (tt *testTable) values() []clinic.TestValue {
	var out []clinic.TestValue
	for _, n := range tt.order {
		out = append(out, *tt.byName[n])
	}
	return out
}

// openingComplaint is the primary symptom or, for a case without one (an
// asymptomatic visit: "Symptoms": {}), the first sentence of the History.
func openingComplaint(pa Node) (string, error) {
	if sym, ok := pa.Get("Symptoms"); ok {
		if p, ok := sym.Get("Primary_Symptom"); ok && !uninformative(p.Text()) {
			return p.Text(), nil
		}
	}
	if h, ok := pa.Get("History"); ok && !uninformative(h.Text()) {
		if ss := Sentences(h.Text()); len(ss) > 0 {
			return ss[0], nil
		}
	}
	return "", FieldError{"OSCE_Examination.Patient_Actor.Symptoms.Primary_Symptom", "required when Patient_Actor.History is empty (the opening complaint comes from one of them)"}
}

type evidenceLeaf struct {
	name, value string
	exam        bool
}

func findingIndex(fs []clinic.Finding, sys string) int {
	for i, f := range fs {
		if f.System == sys {
			return i
		}
	}
	return -1
}

func sectionTopic(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.Contains(k, "past_medical"):
		return clinic.TopicPastHistory
	case strings.Contains(k, "social"):
		return clinic.TopicSocial
	case strings.Contains(k, "review_of_systems"):
		return clinic.TopicSystems
	case strings.Contains(k, "medication"):
		return clinic.TopicMedications
	case strings.Contains(k, "allerg"):
		return clinic.TopicAllergies
	case strings.Contains(k, "family"):
		return clinic.TopicFamily
	}
	return "" // History: topics come from cue words alone
}

var systemByWord = []struct{ word, system string }{
	{"vital", "vitals"}, {"neuro", "neurological"}, {"cranial", "neurological"}, {"mental", "mental state"},
	{"abdom", "abdominal"}, {"rect", "abdominal"}, {"anal", "abdominal"}, {"cardiopulm", "cardiovascular"},
	{"cardi", "cardiovascular"}, {"heart", "cardiovascular"}, {"respir", "respiratory"}, {"lung", "respiratory"},
	{"pulmon", "respiratory"}, {"chest", "respiratory"}, {"skin", "skin"}, {"derma", "skin"}, {"ent", "ent"},
	{"ear", "ent"}, {"oral", "ent"}, {"throat", "ent"}, {"neck", "ent"}, {"audio", "ent"}, {"eye", "eye"},
	{"ophthal", "eye"}, {"pelvic", "genitourinary"}, {"genit", "genitourinary"}, {"obstet", "genitourinary"},
	{"breast", "genitourinary"}, {"kidney", "genitourinary"}, {"testic", "genitourinary"}, {"musculo", "musculoskeletal"},
	{"extrem", "musculoskeletal"}, {"joint", "musculoskeletal"}, {"hand", "musculoskeletal"}, {"knee", "musculoskeletal"},
	{"limb", "musculoskeletal"}, {"spine", "musculoskeletal"}, {"back", "musculoskeletal"},
}

func examSystem(key string) string {
	for _, w := range strings.Split(strings.ToLower(key), "_") {
		for _, sb := range systemByWord {
			if strings.HasPrefix(w, sb.word) {
				return sb.system
			}
		}
	}
	return "general"
}

var containers = map[string]bool{"blood tests": true, "blood test": true, "blood work": true, "laboratory tests": true,
	"laboratory studies": true, "laboratory": true, "labs": true, "imaging": true, "additional tests": true,
	"other tests": true, "investigations": true, "laboratory results": true, "laboratory investigations": true}

func isContainer(key string) bool { return containers[strings.ToLower(HumanKey(key))] }

var bracketed = regexp.MustCompile(`\s*\(([^)]*)\)\s*`)

// testName returns the catalog name of an imported test key and its aliases.
func TestName(raw string) (string, []string) {
	var aliases []string
	if m := bracketed.FindStringSubmatch(raw); m != nil {
		aliases = append(aliases, m[1])
		raw = bracketed.ReplaceAllString(raw, " ")
	}
	if it, match := catalog.Default().Lookup(raw); match != catalog.MatchNone {
		return it.Name, aliases
	}
	return strings.ReplaceAll(textmatch.Normalize(HumanKey(raw)), "xray", "x ray"), aliases
}

// splitAbbreviation turns "Benign Paroxysmal Positional Vertigo (BPPV)" into the
// name and its abbreviation.
func splitAbbreviation(dx string) (string, []string) {
	dx = strings.TrimSpace(dx)
	m := bracketed.FindStringSubmatch(dx)
	if m == nil {
		return dx, nil
	}
	return strings.TrimSpace(bracketed.ReplaceAllString(dx, " ")), []string{strings.TrimSpace(m[1])}
}

func ConditionKey(dx string) string {
	return strings.ReplaceAll(catalog.Key(dx), " ", "_")
}

var (
	normalCue   = regexp.MustCompile(`(?i)^(normal|within normal|unremarkable|negative|non-?reactive|clear|intact|no |none|not |absence|absent of|regular|symmetric|soft|appropriate|stable|benign|nontender|non-tender|well)`)
	abnormalCue = regexp.MustCompile(`(?i)(elevat|raised|increas|decreas|reduc|diminish|low|high|positive|present|abnormal|enlarg|tender|mass|lesion|detected|consistent with|suggest|dilat|opacit|fracture|effusion|infiltrat|thicken|atroph|swell|erythem|rash|ulcer|nodul|cyst|deformit|murmur|crackle|wheez|distension|distended|palpable|weak|absent|impaired|prolonged|deficit|compatible with|indicativ|evidence of|obstruct|stenosis|narrow|tumou?r|carcinoma|malignan|infection|abscess|ha?emorrhag|bleed|presence of|too numerous|thromb|infarct|necros|\+)`)
	number      = regexp.MustCompile(`\d+(\.\d+)?`)
)

// abnormalLeaf is the documented rule for deriving evidence: vital signs are
// abnormal outside adult reference ranges (temperature >= 38.0 C or 100.4 F, heart
// rate > 100 or < 50, systolic >= 140 or < 90, respiratory rate > 20, oxygen
// saturation < 94%); any other value is abnormal when it carries an abnormal cue
// word and does not open with a normal or negating phrase.
func AbnormalLeaf(name, value string) bool {
	n := strings.ToLower(name)
	v := strings.TrimSpace(value)
	if v == "" || uninformative(v) || strings.Contains(n, "optional") || strings.Contains(n, "note") {
		return false
	}
	lv := strings.ToLower(v)
	if strings.Contains(lv, "normal") && !strings.Contains(lv, "abnormal") && strings.Contains(lv, "(normal") {
		return false // "120 bpm (normal for age)"
	}
	first := func() (float64, bool) {
		m := number.FindString(v)
		if m == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(m, 64)
		return f, err == nil
	}
	switch {
	case strings.Contains(n, "temperature"):
		f, ok := first()
		return ok && ((f < 50 && f >= 38.0) || (f > 50 && f >= 100.4))
	case strings.Contains(n, "heart rate") || strings.Contains(n, "pulse"):
		f, ok := first()
		return ok && (f > 100 || f < 50)
	case strings.Contains(n, "blood pressure"):
		f, ok := first()
		return ok && (f >= 140 || f < 90)
	case strings.Contains(n, "respiratory rate"):
		f, ok := first()
		return ok && f > 20
	case strings.Contains(n, "oxygen") || strings.Contains(n, "spo2") || strings.Contains(n, "saturation"):
		f, ok := first()
		return ok && f < 94
	}
	if normalCue.MatchString(v) {
		return false
	}
	return abnormalCue.MatchString(v)
}

// sortedKeys is used by tests and stats for deterministic output.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
