package synth

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Version 2's presence odds: how often an optional item of the condition table
// appears in a case. Core facts, the first finding and the first abnormal test
// result always appear.
const (
	v2PositiveOdds = 0.7
	v2NegativeOdds = 0.6
	v2FindingOdds  = 0.75
	v2ResultOdds   = 0.8
	v2PastOdds     = 0.5  // a comorbidity in the past history
	v2MedOdds      = 0.25 // an unrelated regular medicine
	v2SocialOdds   = 0.4  // an everyday social detail
)

// buildV2 builds one case of version 2. Against version 1 it adds: openings
// from a pool of at least eight per condition (its own, its confusable group's)
// said in varied frames and wording; optional facts, findings and secondary
// abnormal results that vary per case, with the evidence key points and
// must-ask topics following what the case holds; comorbidities, unrelated
// medicines and social details; and a result for every billable catalog test,
// normal where the condition says nothing, so test availability never depends
// on the diagnosis.
func (g generator) buildV2(cd condition, instance string, n int, shifted bool, avoid map[string]bool) clinic.Case {
	c, _ := g.buildV2Refs(cd, instance, n, shifted, avoid)
	return c
}

// buildV2Refs is buildV2 that also returns the ID of the fact each positive
// (pN) and pertinent negative (nN) of the condition became.
func (g generator) buildV2Refs(cd condition, instance string, n int, shifted bool, avoid map[string]bool) (clinic.Case, map[string]string) {
	r := g.rng("case/v2", instance, strconv.Itoa(n), cd.key)
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, Condition: cd.key, System: cd.sys,
		Provenance: clinic.Provenance{Source: SourceV2, SourceCaseID: fmt.Sprintf("%s/%s/%d", cd.key, instance, n)}}
	patientBase(&c, cd, r)
	c.Patient.OpeningComplaint = openingV2(cd, shifted, avoid, r)
	b := v2Case{r: r, present: map[string]bool{}, refs: map[string]string{}, covered: map[string]bool{}}
	d := c.Patient.Demographics
	c.Patient.Facts = b.facts(cd, shifted, d.Age, d.Sex)
	c.Exam.Findings = withVitals(b.findings(cd), r)
	c.Exam.Tests = b.tests(cd, shifted, d.Sex, g.cat.Items())
	c.Exam.Catalog = g.names
	m := &c.Manager
	managerBase(m, cd)
	for i, p := range cd.evi {
		if supported(evidenceSupport[cd.key][i], b.present) {
			m.Evidence = append(m.Evidence, p)
		}
	}
	for _, t := range list(cd.ask) {
		if b.covered[t] { // a topic the patient can say nothing new about is not a must-ask
			m.MustAsk = append(m.MustAsk, t)
		}
	}
	return c, b.refs
}

// v2Case is what building one version 2 case keeps between its steps, each
// drawing from r in turn.
type v2Case struct {
	r       *rand.Rand
	present map[string]bool   // support references (see evidenceSupport) present in the case
	refs    map[string]string // fact IDs of the positives and negatives present
	covered map[string]bool   // the topics of the facts
}

// facts are the positives (an atypical presentation without its first core
// one) and negatives that the odds keep, then the background.
func (b *v2Case) facts(cd condition, shifted bool, age int, sex string) []clinic.Fact {
	var facts []clinic.Fact
	add := func(topic, text string) {
		facts = append(facts, clinic.Fact{ID: "f" + strconv.Itoa(len(facts)+1), Text: vary(text, b.r), Topics: []string{topic}})
		b.covered[topic] = true
	}
	keep := func(ref, topic, text string) {
		add(topic, text)
		b.present[ref] = true
		b.refs[ref] = facts[len(facts)-1].ID
	}
	droppedCore := false
	for i, p := range cd.pos {
		topic, text, core := splitFact(p)
		if shifted && core && !droppedCore {
			droppedCore = true // an atypical presentation lacks the classic lead feature
			continue
		}
		if core || b.r.Float64() < v2PositiveOdds {
			keep("p"+strconv.Itoa(i), topic, text)
		}
	}
	for i, p := range cd.neg {
		topic, text, _ := splitFact(p)
		if b.r.Float64() < v2NegativeOdds {
			keep("n"+strconv.Itoa(i), topic, text)
		}
	}
	for _, d := range backgroundV2(cd, age, sex, b.covered, b.r) {
		add(d[0], d[1])
	}
	return facts
}

// findings are the first exam finding and those the odds keep.
func (b *v2Case) findings(cd condition) []clinic.Finding {
	var findings []clinic.Finding
	for i, e := range cd.exam {
		sys, text := split2(e)
		if i == 0 || b.r.Float64() < v2FindingOdds {
			findings = append(findings, clinic.Finding{System: sys, Text: text, Abnormal: sys != "vitals" || abnormalVitals(text)})
			b.present["e"+strconv.Itoa(i)] = true
		}
	}
	return findings
}

// tests are the first abnormal result and those the odds keep (a shifted
// case's replaced), then a normal result for every other billable test of
// items (the catalog), by name.
func (b *v2Case) tests(cd condition, shifted bool, sex string, items []catalog.Item) []clinic.TestValue {
	type result struct {
		text     string
		abnormal bool
	}
	results := map[string]result{}
	first := true
	for _, t := range append(append([]string(nil), cd.tests...), extraResults[cd.key]...) {
		name, res := split2(t)
		if looksNormal(res) || listedNormal[cd.key+"/"+name] {
			// A listed normal result reads like every other normal result.
			b.present["t:"+name] = true
			continue
		}
		if first || b.r.Float64() < v2ResultOdds {
			results[name] = result{res, true}
			b.present["t:"+name] = true
		}
		first = false
	}
	if shifted {
		for _, t := range cd.shift {
			name, res := split2(t)
			results[name] = result{res, true}
			delete(b.present, "t:"+name)
		}
	}
	for _, it := range items {
		if _, ok := results[it.Name]; !ok && !it.Free() {
			results[it.Name] = result{normalResults[it.Name](b.r, sex), false}
		}
	}
	var tests []clinic.TestValue
	for _, n := range slices.Sorted(maps.Keys(results)) {
		tests = append(tests, clinic.TestValue{Name: n, Result: results[n].text, Abnormal: results[n].abnormal})
	}
	return tests
}

// supported evaluates a support reference ("a+b": both, "a|b": either).
func supported(ref string, present map[string]bool) bool {
	for _, all := range strings.Split(ref, "+") {
		ok := false
		for _, alt := range strings.Split(all, "|") {
			ok = ok || present[strings.TrimSpace(alt)]
		}
		if !ok {
			return false
		}
	}
	return true
}

// openingPool lists a condition's version 2 openings: version 1's openings
// that do not name the diagnosis, its extra openings and its group's openings.
func openingPool(cd condition) []string {
	names := append([]string{cd.name}, list(cd.aka)...)
	var pool []string
	for _, o := range cd.open {
		named := false
		for _, n := range names {
			named = named || textmatch.ContainsPhrase(o, n)
		}
		if !named {
			pool = append(pool, o)
		}
	}
	pool = append(pool, extraOpenings[cd.key]...)
	return append(pool, groupOpenings[cd.grp]...)
}

// openingV2 draws an opening and says it in a frame with varied wording; a
// draw whose normalised text is in avoid is drawn again, and if every draw is
// taken the frames are walked in order for one that is free.
func openingV2(cd condition, shifted bool, avoid map[string]bool, r *rand.Rand) string {
	pool := openingPool(cd)
	if shifted && len(cd.atyp) > 0 {
		pool = cd.atyp
	}
	var o string
	for range 32 {
		o = frame(frames[r.IntN(len(frames))], paraphrase(pool[r.IntN(len(pool))], r))
		if !avoid[textmatch.Normalize(o)] {
			return o
		}
	}
	for _, base := range pool {
		for _, f := range frames {
			if o := frame(f, base); !avoid[textmatch.Normalize(o)] {
				return o
			}
		}
	}
	return o // every combination is taken; the corpus tests catch this
}

func frame(f, opening string) string {
	if strings.Contains(f, "%l") {
		return strings.Replace(f, "%l", lowerOpening(opening), 1)
	}
	return strings.Replace(f, "%s", opening, 1)
}

// lowerOpening lowers the first letter of an opening continuing a sentence,
// except the pronoun I and an abbreviation.
func lowerOpening(s string) string {
	if len(s) < 2 || strings.HasPrefix(s, "I ") || strings.HasPrefix(s, "I'") || (s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func paraphrase(s string, r *rand.Rand) string {
	for _, p := range paraphrases {
		if strings.Contains(s, p[0]) && r.IntN(2) == 0 {
			s = strings.Replace(s, p[0], p[1], 1)
		}
	}
	return s
}

// clashes memoises namedBy: the check is the same for every case of a
// condition, and a corpus has hundreds of cases of each.
var clashes sync.Map // names -> []bool

// namedBy reports, for each distractor, whether its history or medicine names
// the condition's diagnosis, an accepted name or a dangerous alternative.
func namedBy(cd condition) []bool {
	key := [3]string{cd.name, cd.aka, cd.danger}
	if v, ok := clashes.Load(key); ok {
		return v.([]bool)
	}
	names := append(append([]string{cd.name}, list(cd.aka)...), list(cd.danger)...)
	out := make([]bool, len(distractors))
	for i, d := range distractors {
		for _, n := range names {
			if textmatch.ContainsPhrase(d.past+" "+d.med, n) {
				out[i] = true
				break
			}
		}
	}
	v, _ := clashes.LoadOrStore(key, out)
	return v.([]bool)
}

// backgroundV2 returns the routine history of a case: a comorbidity, an
// unrelated medicine and a social detail now and then (never for a child, never
// one that touches the condition's system or names its diagnosis), and a plain
// answer for every routine topic the condition and the distractors leave open.
func backgroundV2(cd condition, age int, sex string, covered map[string]bool, r *rand.Rand) [][2]string {
	var out [][2]string
	has := map[string]bool{}
	for t := range covered {
		has[t] = true
	}
	put := func(topic, text string) {
		out = append(out, [2]string{topic, text})
		has[topic] = true
	}
	if age >= 18 {
		past, meds := distractorsFor(cd, age, sex)
		if len(past) > 0 && r.Float64() < v2PastOdds {
			d := past[r.IntN(len(past))]
			put(clinic.TopicPastHistory, d.past)
			if d.med != "" {
				put(clinic.TopicMedications, d.med)
			}
		}
		if len(meds) > 0 && r.Float64() < v2MedOdds {
			put(clinic.TopicMedications, meds[r.IntN(len(meds))].med)
		}
		if r.Float64() < v2SocialOdds {
			put(clinic.TopicSocial, socialDistractors[r.IntN(len(socialDistractors))])
		}
	}
	for _, d := range routineV2(age, r) {
		if !has[d[0]] {
			put(d[0], d[1])
		}
	}
	return out
}

// distractorsFor are the comorbidities (past) and unrelated medicines (meds)
// that fit an adult patient of the condition: the right sex and age, of
// another system, not named by the condition.
func distractorsFor(cd condition, age int, sex string) (past, meds []distractor) {
	fits := func(d distractor) bool {
		if (d.sex != "" && d.sex != sex) || age < d.minAge || (d.maxAge > 0 && age > d.maxAge) {
			return false
		}
		return !slices.Contains(d.avoidSys, cd.sys) && !slices.Contains(d.avoidKeys, cd.key)
	}
	clash := namedBy(cd)
	for i, d := range distractors {
		if clash[i] || !fits(d) {
			continue
		}
		if d.past != "" {
			past = append(past, d)
		} else {
			meds = append(meds, d)
		}
	}
	return past, meds
}

// routineV2 are the everyday answers on medicines, allergies, past and
// family history and social life (a child's in a child's words), for the
// topics no fact covers.
func routineV2(age int, r *rand.Rand) [][2]string {
	allergy := "I have no allergies to medicines."
	if r.Float64() < 0.12 {
		allergy = "I am allergic to penicillin; it gave me a rash."
	}
	routine := [][2]string{
		{clinic.TopicMedications, pick(r, "I do not take any regular medicines.", "I am not on any tablets.", "I don't take anything regularly.")},
		{clinic.TopicAllergies, allergy},
		{clinic.TopicPastHistory, pick(r, "I have been healthy until now.", "Nothing serious in the past.", "I have always been quite well.")},
		{clinic.TopicFamily, pick(r, "Nothing runs in my family that I know of.", "My parents are both well.", "No illnesses in the family that I know of.")},
		{clinic.TopicSocial, pick(r, "I do not smoke and drink only a little.", "I work in an office and do not smoke.", "I don't smoke; I have the odd glass of wine.")},
	}
	if age < 16 {
		routine[0][1] = "No regular medicines."
		routine[2][1] = "Usually healthy."
		routine[4][1] = "Goes to school and lives at home with the family."
	}
	return routine
}
