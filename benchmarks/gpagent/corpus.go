package gpagent

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/textmatch"
)

// The GP corpus (§3–4): every condition of variants as a diagnose-and-manage
// case and as an abstain-and-refer case, built on version 2's cases of the
// shared condition table (synth's toolkit). Generation is deterministic by
// seed; the corpus version never changes.
const (
	SourceGP = "clinevo-synth/gp1"
	// Stages of synth.StageSize make the GP stream: each stage holds every
	// condition's manage case and refer cases of as many conditions as fill
	// the stage (21 of the 29), so that every stage, like every split, is
	// stratified by management label (42% refer). clinevo's choice, as are
	// the sizes: the paper's corpus is not public.
	Stages      = 10
	HeldOutSize = 100
)

// Splits are the GP corpus's splits: the stream and a held-out split of new
// instances whose openings the stream never uses.
var Splits = []string{"gp", "gp-heldout"}

var _ corpus.Builtins = Benchmark{}

// BuiltinSplits are the GP corpus's splits, built on generator version 2.
func (Benchmark) BuiltinSplits() map[string][]int {
	return map[string][]int{Splits[0]: {synth.V2}, Splits[1]: {synth.V2}}
}

// Builtin generates a split of the GP corpus.
func (Benchmark) Builtin(split string, version int, seed uint64) ([]clinic.Case, error) {
	if !slices.Contains(Splits, split) || version != synth.V2 {
		return nil, fmt.Errorf("the GP corpus has splits %s of generator version 2, not %s of v%d", strings.Join(Splits, ", "), split, version)
	}
	splits, err := Generate(seed)
	if err != nil {
		return nil, err
	}
	return splits[split], nil
}

// Conditions lists the conditions of the GP corpus, in table order.
func Conditions() []string {
	out := make([]string, len(variants))
	for i, v := range variants {
		out[i] = v.key
	}
	return out
}

// Generate returns the GP corpus's splits for a seed: "gp", 500 cases in 10
// stages of 50 (29 manage, 21 refer each), and "gp-heldout", 100 cases (58
// manage, 42 refer).
func Generate(seed uint64) (map[string][]clinic.Case, error) {
	g := synth.NewGenerator(seed)
	out := map[string][]clinic.Case{}
	manage := len(variants)
	var stream []clinic.Case
	for s := 1; s <= Stages; s++ {
		stage, err := buildStage(g, "gp", s, manage, synth.StageSize-manage, (s-1)*synth.StageSize, nil)
		if err != nil {
			return nil, err
		}
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
	heldManage := HeldOutSize * manage / synth.StageSize
	held, err := buildStage(g, "gp-heldout", 0, heldManage, HeldOutSize-heldManage, 0, seen)
	if err != nil {
		return nil, err
	}
	out["gp-heldout"] = held
	return out, nil
}

// buildStage builds nManage manage cases and nRefer refer cases, conditions in
// whole permutations of the table, numbered from offset+1. The refer cases
// are spread evenly through the stage, so that every prefix (a run's limit)
// is stratified too: the k-th case is a refer case when that brings the
// refer cases so far to round(k·nRefer/n).
func buildStage(g synth.Generator, split string, stage, nManage, nRefer, offset int, avoid map[string]bool) ([]clinic.Case, error) {
	r := g.Rand("gp/order", split, strconv.Itoa(stage))
	var perms [2][]int
	for i, n := range []int{nManage, nRefer} {
		for len(perms[i]) < n {
			perms[i] = append(perms[i], r.Perm(len(variants))...)
		}
		perms[i] = perms[i][:n]
	}
	total := nManage + nRefer
	out := make([]clinic.Case, total)
	refers := 0
	for i := range out {
		refer := refers < (2*(i+1)*nRefer+total)/(2*total) // round((i+1)·nRefer/total)
		v := perms[0][i-refers]
		if refer {
			v = perms[1][refers]
			refers++
		}
		n := offset + i + 1
		c, err := build(g, variants[v], split, n, refer, avoid)
		if err != nil {
			return nil, err
		}
		c.ID = fmt.Sprintf("%s-%04d", split, n)
		c.Meta = clinic.CaseMeta{Split: split}
		out[i] = c
	}
	return out, nil
}

// build builds one GP case: version 2's case of the condition, examined on
// the core systems, with a GP persona and the management fields; a refer case
// adds the row's red flags, its diagnosis, destination, urgency and treatment.
func build(g synth.Generator, v variant, split string, n int, refer bool, avoid map[string]bool) (clinic.Case, error) {
	label, age := PathwayManage, ""
	if refer {
		label, age = PathwayRefer, v.age
	}
	c, err := g.Case(v.key, split, n, age, avoid)
	if err != nil {
		return clinic.Case{}, err
	}
	r := g.Rand("gp/case", split, strconv.Itoa(n), v.key, label)
	c.Provenance = clinic.Provenance{Source: SourceGP, SourceCaseID: fmt.Sprintf("%s/%s/%s/%d", v.key, label, split, n)}
	c.Patient.Persona = persona(r)
	m := &c.Manager
	if !refer {
		m.Referral = &clinic.Referral{Needed: false}
		// The condition's management key points are its treatment.
		SetManagement(&c, Management{Label: label, Treatment: slices.Clone(m.Management)})
		c.Exam.Findings = synth.CompleteExam(c.Exam.Findings, coreSystems, normalFindings, r)
		return c, nil
	}
	evidence, err := synth.Revise(&c, synth.Revision{Drop: synth.List(v.drop), Facts: v.flags, FactPrefix: "rf", Findings: v.exam, Results: v.tests})
	if err != nil {
		return clinic.Case{}, err
	}
	c.Exam.Findings = synth.CompleteExam(c.Exam.Findings, coreSystems, normalFindings, r)
	m.Evidence = append(evidence, v.redFlags...)
	dest, urgency := synth.Pair(v.ref)
	m.Referral = &clinic.Referral{Needed: true, Destination: dest, Urgency: urgency, Alternatives: synth.List(v.alt), RedFlags: slices.Clone(v.redFlags)}
	m.Diagnosis = clinic.Diagnosis{Name: v.name, Acceptable: synth.List(v.aka)}
	SetManagement(&c, Management{Label: label, Treatment: slices.Clone(v.tx)})
	m.Management = slices.Clone(v.tx)
	m.UnsafeManagement = []string{"manage at home without referral", "reassure and discharge"}
	m.RequiredActions = nil
	if hinted := strings.TrimSpace(c.Patient.OpeningComplaint) + " " + v.hint; v.hint != "" && r.IntN(3) == 0 && !avoid[textmatch.Normalize(hinted)] {
		c.Patient.OpeningComplaint = hinted
	}
	return c, nil
}

// coreSystems are the examinations every GP record holds (§3: the six core
// assessments, with the vital signs).
var coreSystems = []string{"vitals", "general", "cardiovascular", "respiratory", "abdominal", "neurological", "musculoskeletal"}

// normalFindings are the unremarkable findings of the core systems, written
// for clinevo.
var normalFindings = map[string][]string{
	"general":         {"Alert and comfortable at rest, well perfused.", "Well, alert and orientated; not distressed."},
	"cardiovascular":  {"Heart sounds normal, no murmurs; peripheral pulses present.", "Regular pulse, normal heart sounds, no added sounds."},
	"respiratory":     {"Chest clear, equal air entry, no wheeze or crackles.", "Normal breath sounds throughout, no added sounds."},
	"abdominal":       {"Abdomen soft and non-tender, no masses, bowel sounds normal.", "Soft abdomen, no tenderness or organomegaly."},
	"neurological":    {"Cranial nerves intact; normal power, tone, reflexes and sensation.", "No focal neurological deficit; gait normal."},
	"musculoskeletal": {"Limbs unremarkable, no swelling, full range of movement.", "No joint swelling or tenderness; calves soft."},
}

// persona draws a persona on the paper's four dimensions (§4.1):
// personality (neutral in two cases of five, otherwise one of the other
// five), language proficiency (basic 20%, intermediate 30%, advanced 50%),
// anamnestic fidelity (low 25%) and disorientation (moderate 17%, high 8%).
// The shares are clinevo's choice.
func persona(r *rand.Rand) clinic.Persona {
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
