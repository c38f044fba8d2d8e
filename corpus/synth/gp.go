package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// The GP corpus (GPAgentBench's profile, §3–4): every condition of gpVariants
// as a diagnose-and-manage case and as an abstain-and-refer case, built on
// version 2's cases. Generation is deterministic by seed; the corpus version
// never changes.
const (
	SourceGP = "clinevo-synth/gp1"
	// GPStages of StageSize make the GP stream: each stage holds every
	// condition's manage case and refer cases of as many conditions as fill
	// the stage (21 of the 29), so that every stage, like every split, is
	// stratified by management label (42% refer).
	GPStages      = 10
	GPHeldOutSize = 100
)

// GPSplits are the GP corpus's splits: the stream and a held-out split of new
// instances whose openings the stream never uses.
var GPSplits = []string{"gp", "gp-heldout"}

// GPConditions lists the conditions of the GP corpus, in table order.
func GPConditions() []string {
	out := make([]string, len(gpVariants))
	for i, v := range gpVariants {
		out[i] = v.key
	}
	return out
}

// GenerateGP returns the GP corpus's splits for a seed: "gp", 500 cases in 10
// stages of 50 (29 manage, 21 refer each), and "gp-heldout", 100 cases (58
// manage, 42 refer).
func GenerateGP(seed uint64) map[string][]clinic.Case {
	cat := catalog.Default()
	g := generator{version: V2, seed: seed, cat: cat, names: cat.Names()}
	out := map[string][]clinic.Case{}
	manage := len(gpVariants)
	var stream []clinic.Case
	for s := 1; s <= GPStages; s++ {
		stage := g.gpStage("gp", s, manage, StageSize-manage, (s-1)*StageSize, nil)
		for i := range stage {
			stage[i].Meta.Stage = s
		}
		stream = append(stream, stage...)
	}
	out["gp"] = stream
	seen := map[string]bool{}
	for _, c := range stream {
		seen[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
	}
	heldManage := GPHeldOutSize * manage / StageSize
	out["gp-heldout"] = g.gpStage("gp-heldout", 0, heldManage, GPHeldOutSize-heldManage, 0, seen)
	return out
}

// gpStage builds nManage manage cases and nRefer refer cases, conditions in
// whole permutations of the table, numbered from offset+1. The refer cases
// are spread evenly through the stage, so that every prefix (a run's limit)
// is stratified too: the k-th case is a refer case when that brings the
// refer cases so far to round(k·nRefer/n).
func (g generator) gpStage(split string, stage, nManage, nRefer, offset int, avoid map[string]bool) []clinic.Case {
	r := g.rng("gp/order", split, strconv.Itoa(stage))
	var perms [2][]int
	for i, n := range []int{nManage, nRefer} {
		for len(perms[i]) < n {
			perms[i] = append(perms[i], r.Perm(len(gpVariants))...)
		}
		perms[i] = perms[i][:n]
	}
	total := nManage + nRefer
	out := make([]clinic.Case, total)
	refers := 0
	for i := range out {
		refer := refers < (2*(i+1)*nRefer+total)/(2*total) // round((i+1)·nRefer/total)
		variant := perms[0][i-refers]
		if refer {
			variant = perms[1][refers]
			refers++
		}
		n := offset + i + 1
		out[i] = g.buildGP(gpVariants[variant], split, n, refer, avoid)
		out[i].ID = fmt.Sprintf("%s-%04d", split, n)
		out[i].Meta = clinic.CaseMeta{Split: split}
	}
	return out
}

// buildGP builds one GP case: version 2's case of the condition, examined on
// the core systems, with a GP persona and the management fields; a refer case
// adds the row's red flags, its diagnosis, destination, urgency and treatment.
func (g generator) buildGP(v gpVariant, split string, n int, refer bool, avoid map[string]bool) clinic.Case {
	cd := conditionByKey(v.key)
	label := clinic.PathwayManage
	if refer {
		label = clinic.PathwayRefer
		if v.age != "" {
			cd.age = v.age
		}
	}
	c := g.buildV2(cd, split, n, false, avoid)
	r := g.rng("gp/case", split, strconv.Itoa(n), cd.key, label)
	c.Provenance = clinic.Provenance{Source: SourceGP, SourceCaseID: fmt.Sprintf("%s/%s/%s/%d", cd.key, label, split, n)}
	c.Patient.Persona = gpPersona(r)
	m := &c.Manager
	m.ManagementLabel = label
	if !refer {
		m.Referral = &clinic.Referral{Needed: false}
		m.Treatment = slices.Clone(cd.mgmt)
		c.Exam.Findings = coreFindings(c.Exam.Findings, r)
		return c
	}
	dropped := g.referFacts(&c, cd, v)
	dropped = append(dropped, replaceFindings(&c, v.exam)...)
	dropped = append(dropped, replaceResults(&c, v.tests)...)
	c.Exam.Findings = coreFindings(c.Exam.Findings, r)
	m.Evidence = append(keepSupported(cd, m.Evidence, dropped), v.redFlags...)
	dest, urgency := split2(v.ref)
	m.Referral = &clinic.Referral{Needed: true, Destination: dest, Urgency: urgency, Alternatives: list(v.alt), RedFlags: slices.Clone(v.redFlags)}
	m.Diagnosis = clinic.Diagnosis{Name: v.name, Acceptable: list(v.aka)}
	m.Treatment = slices.Clone(v.tx)
	m.Management = slices.Clone(v.tx)
	m.UnsafeManagement = []string{"manage at home without referral", "reassure and discharge"}
	m.RequiredActions = nil
	if hinted := strings.TrimSpace(c.Patient.OpeningComplaint) + " " + v.hint; v.hint != "" && r.IntN(3) == 0 && !avoid[textmatch.Normalize(hinted)] {
		c.Patient.OpeningComplaint = hinted
	}
	return c
}

func conditionByKey(key string) condition {
	for _, cd := range conditions {
		if cd.key == key {
			return cd
		}
	}
	panic("synth: gp variant of an unknown condition " + key) // the tables are fixed; a test covers every row
}

// referFacts drops the facts that contradict the red flags, adds the red-flag
// facts, and keeps the must-ask topics the facts still cover plus the red
// flags' topics. It returns the support references (see evidenceSupport) of
// the dropped facts.
func (g generator) referFacts(c *clinic.Case, cd condition, v gpVariant) []string {
	drops := list(v.drop)
	contradicts := func(text string) bool {
		for _, d := range drops {
			if strings.Contains(strings.ToLower(text), strings.ToLower(d)) {
				return true
			}
		}
		return false
	}
	var dropped []string
	for i, p := range cd.pos {
		if _, text, _ := splitFact(p); contradicts(text) {
			dropped = append(dropped, "p"+strconv.Itoa(i))
		}
	}
	for i, p := range cd.neg {
		if _, text, _ := splitFact(p); contradicts(text) {
			dropped = append(dropped, "n"+strconv.Itoa(i))
		}
	}
	var facts []clinic.Fact
	for _, f := range c.Patient.Facts {
		if !contradicts(f.Text) {
			facts = append(facts, f)
		}
	}
	covered := map[string]bool{}
	for _, f := range facts {
		for _, t := range f.Topics {
			covered[t] = true
		}
	}
	var mustAsk []string
	for _, t := range c.Manager.MustAsk {
		if covered[t] {
			mustAsk = append(mustAsk, t)
		}
	}
	for i, fl := range v.flags {
		topic, text := split2(fl)
		facts = append(facts, clinic.Fact{ID: "rf" + strconv.Itoa(i+1), Text: text, Topics: []string{topic}})
		if !slices.Contains(mustAsk, topic) {
			mustAsk = append(mustAsk, topic)
		}
	}
	c.Patient.Facts, c.Manager.MustAsk = facts, mustAsk
	return dropped
}

// replaceFindings puts red-flag findings in place of the system's finding and
// returns the support references of the findings replaced.
func replaceFindings(c *clinic.Case, exam []string) []string {
	var dropped []string
	for _, e := range exam {
		sys, text := split2(e)
		c.Exam.Findings = slices.DeleteFunc(c.Exam.Findings, func(f clinic.Finding) bool { return f.System == sys })
		c.Exam.Findings = append(c.Exam.Findings, clinic.Finding{System: sys, Text: text, Abnormal: true})
		cd := conditionByKey(c.Condition)
		for i, x := range cd.exam {
			if s, _ := split2(x); s == sys {
				dropped = append(dropped, "e"+strconv.Itoa(i))
			}
		}
	}
	return dropped
}

// replaceResults puts red-flag results in place of the test's result and
// returns the support references of the results replaced.
func replaceResults(c *clinic.Case, tests []string) []string {
	var dropped []string
	for _, t := range tests {
		name, res := split2(t)
		found := false
		for i := range c.Exam.Tests {
			if c.Exam.Tests[i].Name == name {
				c.Exam.Tests[i].Result, c.Exam.Tests[i].Abnormal, found = res, true, true
			}
		}
		if !found {
			c.Exam.Tests = append(c.Exam.Tests, clinic.TestValue{Name: name, Result: res, Abnormal: true})
			sort.SliceStable(c.Exam.Tests, func(i, j int) bool { return c.Exam.Tests[i].Name < c.Exam.Tests[j].Name })
		}
		dropped = append(dropped, "t:"+name)
	}
	return dropped
}

// keepSupported keeps the evidence key points whose support does not rest on
// a dropped or replaced item.
func keepSupported(cd condition, points []string, dropped []string) []string {
	present := map[string]bool{}
	for i := range cd.pos {
		present["p"+strconv.Itoa(i)] = true
	}
	for i := range cd.neg {
		present["n"+strconv.Itoa(i)] = true
	}
	for i := range cd.exam {
		present["e"+strconv.Itoa(i)] = true
	}
	for _, t := range append(append(slices.Clone(cd.tests), extraResults[cd.key]...), cd.shift...) {
		name, _ := split2(t)
		present["t:"+name] = true
	}
	for _, d := range dropped {
		present[d] = false
	}
	var out []string
	for _, p := range points {
		i := slices.Index(cd.evi, p)
		if i >= 0 && supported(evidenceSupport[cd.key][i], present) {
			out = append(out, p)
		}
	}
	return out
}

// coreSystems are the examinations every GP record holds (GPAgentBench §3: the
// six core assessments, with the vital signs).
var coreSystems = []string{"vitals", "general", "cardiovascular", "respiratory", "abdominal", "neurological", "musculoskeletal"}

// normalFindings are the unremarkable findings of the core systems.
var normalFindings = map[string][]string{
	"general":         {"Alert and comfortable at rest, well perfused.", "Well, alert and orientated; not distressed."},
	"cardiovascular":  {"Heart sounds normal, no murmurs; peripheral pulses present.", "Regular pulse, normal heart sounds, no added sounds."},
	"respiratory":     {"Chest clear, equal air entry, no wheeze or crackles.", "Normal breath sounds throughout, no added sounds."},
	"abdominal":       {"Abdomen soft and non-tender, no masses, bowel sounds normal.", "Soft abdomen, no tenderness or organomegaly."},
	"neurological":    {"Cranial nerves intact; normal power, tone, reflexes and sensation.", "No focal neurological deficit; gait normal."},
	"musculoskeletal": {"Limbs unremarkable, no swelling, full range of movement.", "No joint swelling or tenderness; calves soft."},
}

// coreFindings adds an unremarkable finding for every core system the case
// does not examine, so that which targets a record lists says little about
// the diagnosis, and orders the findings by system.
func coreFindings(fs []clinic.Finding, r *rand.Rand) []clinic.Finding {
	for _, sys := range coreSystems {
		if hasSystem(fs, sys) {
			continue
		}
		text := normalVitals(r)
		if sys != "vitals" {
			text = pick(r, normalFindings[sys]...)
		}
		fs = append(fs, clinic.Finding{System: sys, Text: text})
	}
	sort.SliceStable(fs, func(i, j int) bool { return systemRank(fs[i].System) < systemRank(fs[j].System) })
	return fs
}

// gpPersona draws a persona on GPAgentBench's four dimensions (§4.1):
// personality (neutral in two cases of five, otherwise one of the other
// five), language proficiency (basic 20%, intermediate 30%, advanced 50%),
// anamnestic fidelity (low 25%) and disorientation (moderate 17%, high 8%).
func gpPersona(r *rand.Rand) clinic.Persona {
	p := clinic.Persona{Personality: "neutral", Language: "advanced", Recall: "high", Disorientation: "normal"}
	if r.Float64() >= 0.4 {
		p.Personality = clinic.Personalities[1+r.IntN(len(clinic.Personalities)-1)]
	}
	switch x := r.Float64(); {
	case x < 0.2:
		p.Language = "basic"
	case x < 0.5:
		p.Language = "intermediate"
	}
	if r.Float64() < 0.25 {
		p.Recall = "low"
	}
	switch x := r.Float64(); {
	case x < 0.08:
		p.Disorientation = "high"
	case x < 0.25:
		p.Disorientation = "moderate"
	}
	return p
}
