package ddxplus

import (
	"context"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// The built-in doctor's constants, all clinevo's own choices.
const (
	// sameAt is the similarity (Jaccard of content words) at which a past
	// patient on a card counts as like this one; below it a card says
	// nothing. Half, as evolver.same_at's default.
	sameAt = 0.5
	// nameCredit is what a pathology earns when the patient's own words name
	// it ("Have you ever been diagnosed with anemia?": yes).
	nameCredit = 0.25
	// differentialSize is how many pathologies the doctor names in
	// interactive mode, most likely first.
	differentialSize = 5
)

// Doctor is the built-in DDXPlus doctor. It knows the 49 pathologies by
// name and the release's questions, and nothing of which evidences each
// pathology has: DDXPlus's patients are generated from that knowledge base
// (release_conditions.json), so a doctor that read it would diagnose every
// shipped patient (300 of 300 by nearest knowledge-base profile) and have
// nothing to learn. It never sees the answer key. Without memory it names the
// pathology the patient's own words name, else an arbitrary but fixed one
// (a hash of the profile and the name orders them); with memory it reads the
// cards the learning methods write: a past patient like this one (sameAt)
// whose answer was marked correct votes for that answer, one whose answer
// was marked wrong votes against it. Interactively it asks the follow-up
// questions of each evidence the patient confirms (the release's question
// hierarchy), what similar past patients were asked, then the release's root
// questions, those the most pathologies list first (a count over the
// knowledge base, which says nothing of which pathology lists which).
type Doctor struct{}

var (
	_ actor.Doctor = Doctor{}
	_ actor.Policy = Benchmark{}
)

// BuiltinDoctor is Doctor.
func (Benchmark) BuiltinDoctor() actor.Doctor { return Doctor{} }

// Decide asks the next question or names the pathologies.
func (Doctor) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	d, err := Embedded()
	if err != nil {
		return actor.Decision{}, err
	}
	x := ViewOf(v)
	ranked := rank(v, x)
	if len(ranked) == 0 {
		return actor.Decision{LLMError: true}, nil // a view without options is not this benchmark's
	}
	if x.Mode == ModeStream || !slices.Contains(v.Actions, string(clinic.Ask)) {
		return actor.Decision{Output: clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: ranked[:1]}}, nil
	}
	top := ranked[:min(differentialSize, len(ranked))]
	if next, ok := d.nextQuestion(v, x); ok && v.Turn < v.MaxTurns-1 {
		return actor.Decision{Output: clinic.DoctorOutput{Action: clinic.Ask, Question: next, WorkingDiagnoses: top}}, nil
	}
	return actor.Decision{Output: clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: top}}, nil
}

// knownWords are the content words of what the doctor knows of the patient,
// written as the learning methods write a past patient's input: the
// presentation (the whole profile in stream mode) and every answer in which
// the patient confirmed something, with its question.
func knownWords(v clinic.DoctorView) map[string]bool {
	parts := []string{v.OpeningComplaint}
	for _, ex := range v.Exchanges {
		if ex.Answered {
			parts = append(parts, ex.Question+" "+ex.Answer)
		}
	}
	return textmatch.Set(strings.Join(parts, " "))
}

// cardWords are the content words of the past patient a card describes.
func cardWords(c clinic.CardHint) map[string]bool {
	if c.Context != "" {
		return textmatch.Set(c.Context)
	}
	return textmatch.Set(c.Text)
}

// rank orders the options: a pathology's score is its name credit plus the
// similarity of the most similar past patient whose answer it was and was
// right, minus that of the most similar one whose answer it was and was
// wrong; ties fall to a hash of the profile and the name.
func rank(v clinic.DoctorView, x View) []string {
	d, _ := Embedded() // Decide checked it
	words := knownWords(v)
	score := map[string]float64{}
	for _, name := range x.Options {
		if sp := textmatch.Specific(name); len(sp) > 0 && textmatch.Subset(sp, words) {
			score[name] = nameCredit
		}
	}
	for _, name := range x.Options {
		score[name] += vote(d, v.Cards, words, name)
	}
	tie := map[string]uint64{}
	for _, name := range x.Options {
		h := fnv.New64a()
		h.Write([]byte(v.OpeningComplaint + "\x00" + name))
		tie[name] = h.Sum64()
	}
	out := slices.Clone(x.Options)
	sort.SliceStable(out, func(i, j int) bool {
		if score[out[i]] != score[out[j]] {
			return score[out[i]] > score[out[j]]
		}
		return tie[out[i]] < tie[out[j]]
	})
	return out
}

// vote is what the cards say of one pathology: the best similarity among the
// like patients it was right for, less the best among those it was wrong for.
func vote(d *Dictionary, cards []clinic.CardHint, words map[string]bool, name string) float64 {
	var good, bad float64
	for _, c := range cards {
		sim := textmatch.Jaccard(words, cardWords(c))
		if sim < sameAt {
			continue
		}
		if p, ok := d.Resolve(c.Diagnosis); ok && c.Diagnosis != "" && p == name {
			good = max(good, sim)
		}
		if p, ok := d.Resolve(c.Avoid); ok && c.Avoid != "" && p == name {
			bad = max(bad, sim)
		}
	}
	return good - bad
}

// nextQuestion is the first question of the plan not yet asked: the
// follow-ups of the evidences the patient confirmed, the evidences like past
// patients confirmed, then the root questions most pathologies list.
func (d *Dictionary) nextQuestion(v clinic.DoctorView, x View) (string, bool) {
	asked := map[string]bool{}
	for _, f := range x.Findings {
		asked[f.Code] = true
	}
	for _, ex := range v.Exchanges {
		asked[ex.Topic] = true
	}
	var plan []string
	for _, f := range x.Findings {
		plan = append(plan, d.followUps(f.Code)...)
	}
	plan = append(append(plan, remembered(v)...), d.screening()...)
	for _, code := range plan {
		if e, ok := d.Evidence(code); ok && !asked[code] {
			return e.Question, true
		}
	}
	return "", false
}

// followUps are the evidences asked only of a patient who has code, in code order.
func (d *Dictionary) followUps(code string) []string {
	var out []string
	for _, c := range d.codes {
		if e := d.evidences[c]; e.Group == code && c != code {
			out = append(out, c)
		}
	}
	return out
}

// remembered are the evidences the cards of like patients asked about, most
// similar card first: the topics a card holds are the evidences its
// episode's questions matched.
func remembered(v clinic.DoctorView) []string {
	words := knownWords(v)
	type hit struct {
		sim  float64
		asks []string
	}
	var hits []hit
	for _, c := range v.Cards {
		if cw := cardWords(c); textmatch.Coverage(words, cw) >= sameAt {
			hits = append(hits, hit{textmatch.Jaccard(words, cw), c.Ask})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].sim > hits[j].sim })
	var out []string
	for _, h := range hits {
		out = append(out, h.asks...)
	}
	return out
}

// screening are the root questions (an evidence that is its own group),
// those the most pathologies list first, then in code order.
func (d *Dictionary) screening() []string {
	listed := map[string]int{}
	for _, c := range d.conditions {
		for _, code := range append(slices.Clone(c.Symptoms), c.Antecedents...) {
			listed[code]++
		}
	}
	var out []string
	for _, c := range d.codes {
		if d.evidences[c].Group == c {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return listed[out[i]] > listed[out[j]] })
	return out
}
