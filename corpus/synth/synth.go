// Package synth generates the synthetic outpatient corpus from a condition table
// written for clinevo. Generation is deterministic by version and seed: the same
// version and seed give byte-identical cases, and a released version never
// changes, so a corpus stays reproducible by name.
package synth

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Generator versions. Version 1 is the original corpus (three openings per
// condition, the same key points in every case of a condition, results only for
// the tests a condition lists); version 2 is the default (see buildV2); version
// 3 keeps a third of the conditions out of the stream for the held-out split
// (see generateV3). Default is what an unversioned reference names; Latest is
// the newest version there is.
const (
	V1      = 1
	V2      = 2
	V3      = 3
	Default = V2
	Latest  = V3
)

// Provenance sources of generated cases, one per version.
const (
	SourceV1 = "clinevo-synth/1"
	SourceV2 = "clinevo-synth/2"
)

// Split sizes and the stream's stage layout.
const (
	StageSize    = 50
	StreamStages = 10
	StreamSize   = StageSize * StreamStages
	HeldOutSize  = 100
	CrossSize    = 100
)

// UpdateStages are the 1-based stages of the update stream that carry shifted presentations.
var UpdateStages = []int{4, 5, 6}

// Splits names the splits in the order Generate returns them.
var Splits = []string{"stream", "heldout", "cross", "update"}

type condition struct {
	key, name, aka, icd, sys, grp, age, sex string
	open, atyp                              []string
	pos, neg, exam, tests, shift            []string
	evi, mgmt, unsafe                       []string
	ref, danger, ask, req                   string
}

// Condition is the public summary of one condition of the table.
type Condition struct {
	Key, Name, System, Group, ICD10 string
}

// Conditions lists the condition table in order.
func Conditions() []Condition {
	out := make([]Condition, len(conditions))
	for i, c := range conditions {
		out[i] = Condition{Key: c.key, Name: c.name, System: c.sys, Group: c.grp, ICD10: c.icd}
	}
	return out
}

// Generate returns the four splits of the default version for a seed: stream
// (500 cases in 10 stages of 50, every condition in every stage), heldout (100
// new cases), cross (100 new cases) and update (the stream with stages 4-6
// replaced by shifted presentations).
func Generate(seed uint64) map[string][]clinic.Case { return generate(Default, seed) }

// GenerateVersion returns the four splits of one generator version.
func GenerateVersion(version int, seed uint64) (map[string][]clinic.Case, error) {
	if version < V1 || version > Latest {
		return nil, fmt.Errorf("synth: unknown generator version %d, want %d to %d", version, V1, Latest)
	}
	return generate(version, seed), nil
}

func generate(version int, seed uint64) map[string][]clinic.Case {
	cat := catalog.Default()
	g := generator{version: version, seed: seed, cat: cat, names: cat.Names()}
	if version >= V3 {
		return g.generateV3()
	}
	out := map[string][]clinic.Case{}
	out["stream"] = g.stream("stream", false)
	out["update"] = g.stream("update", true)
	// Version 2: a held-out or cross opening never equals, after normalisation,
	// an opening of the stream (or the update stream), so held-out accuracy
	// measures transfer to new wording, not recall of a seen sentence.
	var seen map[string]bool
	if version >= V2 {
		seen = map[string]bool{}
		for _, split := range []string{"stream", "update"} {
			for _, c := range out[split] {
				seen[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
			}
		}
	}
	out["heldout"] = g.flat("heldout", HeldOutSize, seen)
	out["cross"] = g.flat("cross", CrossSize, seen)
	return out
}

type generator struct {
	version int
	seed    uint64
	cat     *catalog.Catalog
	names   []string
}

func (g generator) rng(parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(g.seed, h.Sum64()))
}

// order returns n condition indexes: whole permutations of the table, topped up at random.
func (g generator) order(split string, block, n int) []int {
	r := g.rng("order", split, strconv.Itoa(block))
	var idx []int
	for len(idx) < n {
		idx = append(idx, r.Perm(len(conditions))...)
	}
	return idx[:n]
}

func (g generator) stream(split string, shifted bool) []clinic.Case {
	var out []clinic.Case
	for s := 1; s <= StreamStages; s++ {
		// The update stream shares the stream's order and instances outside its update stages.
		for i, ci := range g.order("stream", s, StageSize) {
			n := (s-1)*StageSize + i + 1
			shift := shifted && isUpdateStage(s)
			instance := "stream"
			if shift {
				instance = "update"
			}
			c := g.build(conditions[ci], instance, n, shift, nil)
			c.ID = fmt.Sprintf("%s-%04d", split, n)
			c.Meta = clinic.CaseMeta{Split: split, Stage: s, Shifted: shift}
			out = append(out, c)
		}
	}
	return out
}

func isUpdateStage(s int) bool {
	for _, u := range UpdateStages {
		if u == s {
			return true
		}
	}
	return false
}

// flat generates n cases of a split; openings in avoid (normalised) are not used.
func (g generator) flat(split string, n int, avoid map[string]bool) []clinic.Case {
	var out []clinic.Case
	for i, ci := range g.order(split, 0, n) {
		c := g.build(conditions[ci], split, i+1, false, avoid)
		c.ID = fmt.Sprintf("%s-%04d", split, i+1)
		c.Meta = clinic.CaseMeta{Split: split}
		out = append(out, c)
	}
	return out
}

func (g generator) build(cd condition, instance string, n int, shifted bool, avoid map[string]bool) clinic.Case {
	if g.version >= V2 {
		return g.buildV2(cd, instance, n, shifted, avoid)
	}
	return g.buildV1(cd, instance, n, shifted)
}

// buildV1 is version 1's case builder; it must never change.
func (g generator) buildV1(cd condition, instance string, n int, shifted bool) clinic.Case {
	r := g.rng("case", instance, strconv.Itoa(n), cd.key)
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, Condition: cd.key, System: cd.sys,
		Provenance: clinic.Provenance{Source: SourceV1, SourceCaseID: fmt.Sprintf("%s/%s/%d", cd.key, instance, n)}}
	patientBase(&c, cd, r)
	opening := cd.open[r.IntN(len(cd.open))]
	if shifted && len(cd.atyp) > 0 {
		opening = cd.atyp[r.IntN(len(cd.atyp))]
	}
	c.Patient.OpeningComplaint = vary(opening, r)
	c.Patient.Facts = factsV1(cd, shifted, r)
	var findings []clinic.Finding
	for i, e := range cd.exam {
		sys, text := split2(e)
		if i == 0 || r.Float64() < 0.85 {
			findings = append(findings, clinic.Finding{System: sys, Text: text, Abnormal: sys != "vitals" || abnormalVitals(text)})
		}
	}
	c.Exam.Findings = withVitals(findings, r)
	c.Exam.Tests = g.testsV1(cd, shifted)
	c.Exam.Catalog = g.names
	managerBase(&c.Manager, cd)
	c.Manager.Evidence = append([]string(nil), cd.evi...)
	c.Manager.MustAsk = list(cd.ask)
	return c
}

// patientBase draws the patient's age (in the condition's range), sex
// (unless the condition fixes it) and persona, in that order.
func patientBase(c *clinic.Case, cd condition, r *rand.Rand) {
	lo, hi := ageRange(cd.age)
	age := lo + r.IntN(hi-lo+1)
	sex := cd.sex
	if sex == "" {
		sex = []string{"female", "male"}[r.IntN(2)]
	}
	c.Patient.Demographics = clinic.Demographics{Age: age, Sex: sex, Text: demographicsText(age, sex)}
	c.Patient.Persona = persona(r)
}

// factsV1 are version 1's facts: the positives (an atypical presentation
// without its first core one), the negatives, then the default facts on
// topics not covered yet.
func factsV1(cd condition, shifted bool, r *rand.Rand) []clinic.Fact {
	var facts []clinic.Fact
	covered := map[string]bool{}
	droppedCore := false
	add := func(topic, text string) {
		facts = append(facts, clinic.Fact{ID: "f" + strconv.Itoa(len(facts)+1), Text: vary(text, r), Topics: []string{topic}})
		covered[topic] = true
	}
	for _, p := range cd.pos {
		topic, text, core := splitFact(p)
		if shifted && core && !droppedCore {
			droppedCore = true // an atypical presentation lacks the classic lead feature
			continue
		}
		if core || r.Float64() < 0.8 {
			add(topic, text)
		}
	}
	for _, p := range cd.neg {
		topic, text, _ := splitFact(p)
		if r.Float64() < 0.75 {
			add(topic, text)
		}
	}
	for _, d := range defaultFacts(r) {
		if !covered[d[0]] {
			add(d[0], d[1])
		}
	}
	return facts
}

// withVitals adds normal vitals to findings that have none, and orders the
// findings by system.
func withVitals(findings []clinic.Finding, r *rand.Rand) []clinic.Finding {
	if !hasSystem(findings, "vitals") {
		findings = append(findings, clinic.Finding{System: "vitals", Text: normalVitals(r)})
	}
	sort.SliceStable(findings, func(i, j int) bool { return systemRank(findings[i].System) < systemRank(findings[j].System) })
	return findings
}

// testsV1 are version 1's results: the condition's (shifted ones replaced),
// then the catalog's normal results, by name.
func (g generator) testsV1(cd condition, shifted bool) []clinic.TestValue {
	results := map[string]string{}
	for _, t := range cd.tests {
		name, res := split2(t)
		results[name] = res
	}
	if shifted {
		for _, t := range cd.shift {
			name, res := split2(t)
			results[name] = res
		}
	}
	for _, it := range g.cat.Items() {
		if _, ok := results[it.Name]; !ok && it.Normal != "" {
			results[it.Name] = it.Normal
		}
	}
	var tests []clinic.TestValue
	for _, n := range slices.Sorted(maps.Keys(results)) {
		it, _ := g.cat.Lookup(n)
		tests = append(tests, clinic.TestValue{Name: it.Name, Result: results[n], Abnormal: !looksNormal(results[n])})
	}
	return tests
}

// managerBase fills what every version's answer key takes from the
// condition as it is: the diagnosis, management, referral and required
// actions.
func managerBase(m *clinic.ManagerView, cd condition) {
	m.Diagnosis = clinic.Diagnosis{Name: cd.name, Acceptable: list(cd.aka), ICD10: cd.icd, Dangerous: list(cd.danger)}
	m.Management = append([]string(nil), cd.mgmt...)
	m.UnsafeManagement = append([]string(nil), cd.unsafe...)
	if cd.ref != "" {
		dest, urg := split2(cd.ref)
		m.Referral = &clinic.Referral{Needed: true, Destination: dest, Urgency: urg}
	} else {
		m.Referral = &clinic.Referral{Needed: false}
	}
	m.RequiredActions = list(cd.req)
}

func splitFact(s string) (topic, text string, core bool) {
	if strings.HasPrefix(s, "!") {
		core = true
		s = s[1:]
	}
	topic, text = split2(s)
	return topic, text, core
}

func split2(s string) (string, string) {
	a, b, _ := strings.Cut(s, "|")
	return strings.TrimSpace(a), strings.TrimSpace(b)
}

func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func ageRange(s string) (int, int) {
	a, b := split2(strings.Replace(s, "-", "|", 1))
	lo, _ := strconv.Atoi(a)
	hi, _ := strconv.Atoi(b)
	return lo, hi
}

func demographicsText(age int, sex string) string {
	switch {
	case age < 13 && sex == "female":
		return fmt.Sprintf("%d-year-old girl (attending with a parent)", age)
	case age < 13:
		return fmt.Sprintf("%d-year-old boy (attending with a parent)", age)
	case sex == "female":
		return fmt.Sprintf("%d-year-old woman", age)
	}
	return fmt.Sprintf("%d-year-old man", age)
}

func persona(r *rand.Rand) clinic.Persona {
	p := clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}
	if r.Float64() < 0.6 {
		p.Personality = clinic.Personalities[1+r.IntN(len(clinic.Personalities)-1)]
	}
	if r.Float64() < 0.2 {
		p.Language = "limited"
	}
	switch x := r.Float64(); {
	case x < 0.15:
		p.Recall = "low"
	case x < 0.5:
		p.Recall = "medium"
	}
	if r.Float64() < 0.15 {
		p.Clarity = "confused"
	}
	return p
}

// defaultFacts answer the routine topics a condition says nothing about.
func defaultFacts(r *rand.Rand) [][2]string {
	allergy := "I have no allergies to medicines."
	if r.Float64() < 0.12 {
		allergy = "I am allergic to penicillin; it gave me a rash."
	}
	return [][2]string{
		{clinic.TopicMedications, []string{"I do not take any regular medicines.", "I am not on any tablets."}[r.IntN(2)]},
		{clinic.TopicAllergies, allergy},
		{clinic.TopicPastHistory, []string{"I have been healthy until now.", "Nothing serious in the past."}[r.IntN(2)]},
		{clinic.TopicFamily, "Nothing runs in my family that I know of."},
		{clinic.TopicSocial, []string{"I do not smoke and drink only a little.", "I work in an office and do not smoke."}[r.IntN(2)]},
	}
}

// synonyms vary wording without changing clinical meaning.
var synonyms = [][2]string{
	{"started", "began"}, {"about", "around"}, {"very", "really"}, {"a few", "several"},
	{"worse", "more bothersome"}, {"tummy", "stomach"}, {"a bit", "a little"}, {"settles", "calms down"},
}

func vary(s string, r *rand.Rand) string {
	for _, p := range synonyms {
		if r.IntN(2) == 0 && strings.Contains(s, p[0]) {
			s = strings.Replace(s, p[0], p[1], 1)
		}
	}
	return s
}

func hasSystem(fs []clinic.Finding, sys string) bool {
	for _, f := range fs {
		if f.System == sys {
			return true
		}
	}
	return false
}

func systemRank(sys string) int {
	for i, s := range catalog.ExamSystems {
		if s == sys {
			return i
		}
	}
	return len(catalog.ExamSystems)
}

func normalVitals(r *rand.Rand) string {
	return fmt.Sprintf("BP %d/%d mmHg, HR %d, RR %d, SpO2 %d%%, temperature 36.%d C.",
		112+r.IntN(20), 68+r.IntN(12), 62+r.IntN(24), 12+r.IntN(5), 97+r.IntN(3), 5+r.IntN(4))
}

func abnormalVitals(text string) bool {
	t := strings.ToLower(text)
	for _, w := range []string{"temperature 37.9", "temperature 38", "temperature 39", "hr 1", "spo2 9", "bp 1", "rr 2"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

func looksNormal(result string) bool {
	t := strings.ToLower(result)
	for _, p := range []string{"normal", "negative", "not raised", "no pathogen", "no deep vein", "within reference", "no blood, protein", "no protein", "acceptable"} {
		if strings.HasPrefix(t, p) || strings.Contains(t, "("+p+")") || strings.HasSuffix(strings.TrimSuffix(t, "."), p) {
			return true
		}
	}
	return strings.HasPrefix(t, "sinus rhythm") && !strings.Contains(t, "hypertrophy")
}
