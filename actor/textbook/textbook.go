// Package textbook is a built-in clinician that can learn offline without
// reading the answer key: it knows condition names from a textbook index
// shipped as data (index.txt, written for clinevo, not taken from the
// synthetic corpus's condition table), with a prior of typical findings for
// about half of them and none for the rest. It takes a history, examines,
// orders the tests its index names for its leading candidates, and names the
// candidate that best fits what it was told. What it learns comes from
// memory: its own graded attempts under score-only feedback (EvoClinician's
// memory entries: a HIGH_YIELD submission suggests its diagnosis for a
// similar context, a failed one warns against it), and the key's diagnosis
// under write-back. Nothing of the corpus generator reaches it: the package
// imports no corpus package (a test walks its import graph).
package textbook

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Name is the doctor's name as settings spell it: roles.doctor.model with
// the builtin backend.
const Name = settings.TextbookDoctor

//go:embed index.txt
var indexText string

// Entry is one condition of the index.
type Entry struct {
	Name, Chapter string
	Findings      map[string]bool // stemmed words of the typical findings; empty: no prior
	Tests         []string
}

// Chapter is one chapter of the index: its cue words and conditions.
type Chapter struct {
	Name string
	Cues map[string]bool
}

// Index is the parsed index.
type Index struct {
	Chapters []Chapter
	Entries  []Entry
}

// Parse reads an index in index.txt's format; an error names the line.
func Parse(text string) (Index, error) {
	var ix Index
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "chapter "); ok {
			name, cues, ok := strings.Cut(rest, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return Index{}, fmt.Errorf("index.txt:%d: want \"chapter <name>: <cue words>\"", n)
			}
			ix.Chapters = append(ix.Chapters, Chapter{Name: strings.TrimSpace(name), Cues: textmatch.Set(cues)})
			continue
		}
		if len(ix.Chapters) == 0 {
			return Index{}, fmt.Errorf("index.txt:%d: a condition before any chapter", n)
		}
		parts := strings.Split(line, "|")
		if len(parts) > 3 || strings.TrimSpace(parts[0]) == "" {
			return Index{}, fmt.Errorf("index.txt:%d: want \"<name> | <findings> | <tests>\"", n)
		}
		e := Entry{Name: strings.TrimSpace(parts[0]), Chapter: ix.Chapters[len(ix.Chapters)-1].Name, Findings: map[string]bool{}}
		if len(parts) > 1 {
			e.Findings = textmatch.Set(parts[1])
		}
		if len(parts) > 2 {
			for _, t := range strings.Split(parts[2], ";") {
				if t = strings.TrimSpace(t); t != "" {
					e.Tests = append(e.Tests, t)
				}
			}
		}
		ix.Entries = append(ix.Entries, e)
	}
	return ix, sc.Err()
}

// Shipped is the index the doctor uses.
func Shipped() Index {
	ix, err := Parse(indexText)
	if err != nil {
		panic(err) // the embedded file is fixed data of the binary; its test parses it
	}
	return ix
}

// Weights of the candidate score (clinevo's choice: a remembered outcome of
// a similar encounter outweighs the textbook prior, which outweighs the
// chapter the complaint points to).
const (
	wChapter  = 0.5
	wPrior    = 1.0
	wRecalled = 2.0
	wWarned   = 1.5
	// recallAt is the least likeness at which a remembered encounter counts.
	recallAt = 0.2
	// maxTests caps the tests it orders beyond the free examination.
	maxTests = 2
)

// Doctor is the textbook clinician.
type Doctor struct{ ix Index }

var _ actor.Doctor = Doctor{}

// New is the doctor with the shipped index.
func New() Doctor { return Doctor{ix: Shipped()} }

// history is the doctor's structured history, in order.
var history = []string{clinic.TopicOnset, clinic.TopicCharacter, clinic.TopicLocation, clinic.TopicAssociated, clinic.TopicTriggers, clinic.TopicPastHistory}

// Decide picks the next action from the view alone.
func (d Doctor) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	st := d.read(v)
	ranked := d.rank(st, v.Cards)
	var working []string
	for i, c := range ranked {
		if i == 3 {
			break
		}
		working = append(working, c.name)
	}
	out := func(o clinic.DoctorOutput) (actor.Decision, error) {
		o.WorkingDiagnoses = working
		return actor.Decision{Output: o}, nil
	}
	if v.Turn >= v.MaxTurns-1 {
		return out(d.finalize(st, ranked))
	}
	left := v.MaxTurns - 1 - v.Turn
	tests := d.testPlan(st, ranked, v)
	for _, t := range history {
		if !st.asked[t] && left > len(tests)+1 {
			q := actor.QuestionFor(t)
			return out(clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: q, Utterance: q, Rationale: []string{"history: " + t}})
		}
	}
	if !st.requested[catalog.PhysicalKey] && left > len(tests) {
		return out(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: catalog.PhysicalKey, Utterance: "I would like to examine you.",
			Rationale: []string{"the examination is free and separates candidates"}})
	}
	if len(tests) > 0 {
		return out(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: tests[0], Utterance: "I'd like to arrange a " + tests[0] + ".",
			Rationale: []string{"the index lists " + tests[0] + " for " + working[0]}})
	}
	return out(d.finalize(st, ranked))
}

// seen is what the doctor has been told.
type seen struct {
	words     map[string]bool
	asked     map[string]bool
	requested map[string]bool
	answers   []string
}

func (d Doctor) read(v clinic.DoctorView) seen {
	st := seen{asked: map[string]bool{}, requested: map[string]bool{}}
	texts := []string{v.OpeningComplaint}
	for _, ex := range v.Exchanges {
		if ex.Topic != "" {
			st.asked[ex.Topic] = true
		}
		texts = append(texts, ex.Answer)
		if ex.Answered {
			st.answers = append(st.answers, ex.Answer)
		}
	}
	for _, r := range v.Results {
		st.requested[catalog.Key(r.Test)] = true
		if r.Status == clinic.StatusReturned {
			texts = append(texts, r.Text)
		}
	}
	st.words = textmatch.Set(strings.Join(texts, " "))
	return st
}

type candidate struct {
	name  string
	entry *Entry
	score float64
	cards []string
}

// rank scores every entry: how many of its chapter's cue words were heard
// (three or more count fully), the share of its prior findings heard, and what memory says of similar
// encounters (a card naming it as the diagnosis: the key under write-back,
// a HIGH_YIELD submission of its own under score-only; a card warning
// against it). Ties keep index order.
func (d Doctor) rank(st seen, cards []clinic.CardHint) []candidate {
	chapter := map[string]float64{}
	for _, ch := range d.ix.Chapters {
		n := 0
		for w := range ch.Cues {
			if st.words[w] {
				n++
			}
		}
		chapter[ch.Name] = min(1, float64(n)/3)
	}
	trust := 0.0 // the best textbook fit of any entry
	for _, e := range d.ix.Entries {
		if len(e.Findings) > 0 {
			trust = max(trust, textmatch.Coverage(e.Findings, st.words))
		}
	}
	out := make([]candidate, len(d.ix.Entries))
	for i := range d.ix.Entries {
		e := &d.ix.Entries[i]
		c := candidate{name: e.Name, entry: e, score: wChapter * chapter[e.Chapter]}
		if len(e.Findings) > 0 {
			c.score += wPrior * textmatch.Coverage(e.Findings, st.words)
		}
		for _, card := range cards {
			sim := likeness(card, st.words)
			if card.Kind == clinic.CardAdvice && sim < recallAt {
				continue
			}
			// A textbook fit that is already strong is trusted over a
			// remembered diagnosis: memory can only recall labels it has
			// met, and an unmet condition that fits its textbook picture
			// should not be talked out of it. A warning is not damped.
			if card.Diagnosis != "" && names(card.Diagnosis, e.Name) && (card.Kind != clinic.CardAdvice || card.Grade == string(grader.HighYield)) {
				c.score += wRecalled * sim * (1 - trust)
				c.cards = append(c.cards, card.ID)
			}
			if card.Avoid != "" && names(card.Avoid, e.Name) {
				c.score -= wWarned * sim
			}
		}
		out[i] = c
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// likeness is how alike a remembered encounter is to this one: the Jaccard
// overlap of the content words of the card's context (what that encounter
// had heard: EvoClinician's φ) with what this one has heard, or the
// retrieval similarity for a card without a context. Content words tell
// conditions apart better than the retrieval embedding of the whole text.
func likeness(card clinic.CardHint, heard map[string]bool) float64 {
	if card.Similarity <= 0 {
		return 0
	}
	if card.Kind != clinic.CardAdvice || card.Context == "" {
		return card.Similarity
	}
	return textmatch.Jaccard(textmatch.Set(card.Context), heard)
}

// names reports whether a remembered diagnosis names an index entry.
func names(remembered, entry string) bool {
	return grader.NameGrade(remembered, entry) >= 1
}

// testPlan are the tests the index names for the two leading candidates,
// not yet ordered, within the budgets.
func (d Doctor) testPlan(st seen, ranked []candidate, v clinic.DoctorView) []string {
	var out []string
	for i, c := range ranked {
		if i == 2 {
			break
		}
		for _, t := range c.entry.Tests {
			if !st.requested[catalog.Key(t)] && len(out)+v.TestsUsed < min(actor.TestAllowance(v), maxTests) && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return actor.Affordable(v, out)
}

func (d Doctor) finalize(st seen, ranked []candidate) clinic.DoctorOutput {
	best := ranked[0]
	o := clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{best.name}, CardIDs: best.cards,
		Utterance: "Here is what I think is going on and what we will do.",
		Rationale: []string{fmt.Sprintf("best fit in the textbook index (score %.2f)", best.score)}}
	for _, a := range st.answers {
		if len(o.Evidence) == 3 {
			break
		}
		if len(best.entry.Findings) == 0 || textmatch.Coverage(best.entry.Findings, textmatch.Set(a)) > 0 {
			o.Evidence = append(o.Evidence, a)
		}
	}
	o.Plan = []string{"treatment as for " + strings.ToLower(best.name), "safety-netting advice"}
	o.Followup = []string{"review in one to two weeks, sooner if worse"}
	return o
}
