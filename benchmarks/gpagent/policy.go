package gpagent

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/textmatch"
)

// Builtin is the built-in doctor in the GP workflow (decide): the shared
// case-based clinician's ranking of its experience (actor.CaseState) with
// the workflow's own actions.
type Builtin struct{}

var (
	_ actor.Doctor = Builtin{}
	_ actor.Policy = Benchmark{}
)

// BuiltinDoctor is Builtin.
func (Benchmark) BuiltinDoctor() actor.Doctor { return Builtin{} }

// Decide picks the next action.
func (Builtin) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	return decide(v), nil
}

// The built-in doctor's budget in the GP workflow: turns kept for diagnose
// and treat, and how much of each kind of evidence it gathers.
const (
	gpCloseTurns = 2 // diagnose, then treat
	gpHistory    = 3 // learned history topics
	gpFlagAsks   = 3 // questions about the red flags of referral cards
	gpExams      = 2
	gpTests      = 2
)

// decide is the built-in doctor in GPAgentBench's workflow. Without memory
// it takes a structured history, examines the vital signs and the general
// appearance, commits to a syndromic diagnosis and treats symptomatically: it
// never refers, so every case that needs referral is missed. What it learns
// comes from cards: history topics, examinations and tests to gather, the
// diagnosis and plan of similar presentations, and referral cards (a REFER
// action with the red flags that called for it): it asks about a referral
// card's red flags and refers, to the card's destination and urgency, once
// the revealed information shows enough of them.
func decide(v clinic.DoctorView) actor.Decision {
	st := actor.NewCaseState(v)
	cands := st.Rank()
	working := actor.WorkingNames(cands, v)
	allowed := map[clinic.ActionKind]bool{}
	for _, a := range v.Actions {
		allowed[clinic.ActionKind(a)] = true
	}
	out := func(o clinic.DoctorOutput) actor.Decision {
		o.WorkingDiagnoses = working
		return actor.Decision{Output: o}
	}
	if allowed[Treat] {
		return out(treat(cands, ViewOf(v).Diagnosis))
	}
	refs := referrals(v.Cards, affirmed(v))
	if r, ok := referNow(cands, refs); ok && allowed[Refer] {
		return out(WithOutput(clinic.DoctorOutput{Action: Refer,
			Rationale: []string{"a similar presentation with these red flags needed referral"}, CardIDs: []string{r.card}},
			Output{Destination: r.destination, Urgency: r.urgency, Reason: "red flags: " + strings.Join(r.shown, "; ")}))
	}
	if v.MaxTurns-v.Turn > gpCloseTurns {
		if o, ok := gather(st, v, cands, refs, allowed); ok {
			return out(o)
		}
	}
	name := actor.Undifferentiated(v)
	if c, ok := localCandidate(cands, refs); ok {
		name = c.Name()
	}
	return out(clinic.DoctorOutput{Action: Diagnose, Diagnosis: []string{name},
		Rationale: []string{"closest experience and the evidence gathered"}, CardIDs: actor.CardIDs(cands, 1)})
}

// gather returns the next evidence action: learned (or structured) history,
// questions about the red flags of referral cards, examinations, then tests.
func gather(st actor.CaseState, v clinic.DoctorView, cands []actor.Candidate, refs []referralCard, allowed map[clinic.ActionKind]bool) (clinic.DoctorOutput, bool) {
	if allowed[clinic.Ask] {
		topics := actor.StructuredHistory
		if len(cands) > 0 {
			topics = st.TopicPlan(cands)
			if len(topics) > gpHistory {
				topics = topics[:gpHistory]
			}
		}
		for _, t := range topics {
			if !st.Asked(t) {
				return clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: actor.QuestionFor(t), Rationale: []string{"history: " + strings.ReplaceAll(t, "_", " ")}}, true
			}
		}
		// The red flags of referral cards: their topics, asked again in the
		// doctor's own words (cards choose the topic, never the words); the
		// patient tells what is new first.
		var flagQs []clinic.DoctorOutput
		for _, r := range refs {
			var topics []string
			for _, f := range r.unseen {
				topics = append(topics, flagTopic(f, r.topics))
			}
			for _, t := range append(topics, r.topics...) {
				for _, q := range actor.Questions(t) {
					if !slices.ContainsFunc(flagQs, func(o clinic.DoctorOutput) bool { return o.Question == q }) {
						flagQs = append(flagQs, clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: q,
							Rationale: []string{"screening for red flags that needed referral before"}, CardIDs: []string{r.card}})
					}
				}
			}
		}
		asked := 0
		for _, o := range flagQs {
			switch {
			case st.AskedBefore(o.Question):
				asked++
			case asked < gpFlagAsks:
				return o, true
			}
		}
	}
	if allowed[BodyExam] {
		done := map[string]bool{}
		for _, r := range v.Results {
			done[textmatch.Normalize(r.Test)] = true
		}
		for i, t := range examPlan(v, cands, refs) {
			if i == gpExams {
				break
			}
			if !done[textmatch.Normalize(t)] {
				return WithOutput(clinic.DoctorOutput{Action: BodyExam}, Output{Target: t, Reason: "examination findings separate the candidates"}), true
			}
		}
	}
	if allowed[clinic.RequestTest] {
		n := 0
		for _, t := range st.TestPlan(cands) {
			if !slices.Contains(v.Catalog, t) {
				continue
			}
			if n++; n > gpTests {
				break
			}
			if !st.Requested(t) && !st.Avoided(t) {
				return WithOutput(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: t, CardIDs: actor.CardIDs(cands, 1)},
					Output{Reason: "memory suggests " + t + " for this presentation"}), true
			}
		}
	}
	return clinic.DoctorOutput{}, false
}

// coreTargets are the examinations every GP record offers; a target beyond
// them is the system the presentation is about.
var coreTargets = []string{"vital signs", "general appearance", "cardiovascular", "respiratory", "abdominal", "neurological", "musculoskeletal"}

// examPlan lists the examination targets to request: those the cards name
// (a card's tests may hold examination targets), the record's targets beyond
// the core examinations, then the vital signs and the general appearance.
func examPlan(v clinic.DoctorView, cands []actor.Candidate, refs []referralCard) []string {
	var plan []string
	add := func(t string) {
		for _, target := range ViewOf(v).ExamTargets {
			if textmatch.Normalize(target) == textmatch.Normalize(strings.TrimSuffix(t, " examination")) && !slices.Contains(plan, target) {
				plan = append(plan, target)
			}
		}
	}
	for _, r := range refs {
		for _, t := range r.exams {
			add(t)
		}
	}
	if len(cands) > 0 {
		for _, card := range cands[0].Cards() {
			for _, t := range card.Tests {
				add(t)
			}
		}
	}
	for _, t := range ViewOf(v).ExamTargets {
		if !slices.Contains(coreTargets, t) {
			add(t)
		}
	}
	add("vital signs")
	add("general appearance")
	return plan
}

// treat closes with the plan the cards of the committed diagnosis hold.
func treat(cands []actor.Candidate, diagnosis []string) clinic.DoctorOutput {
	o := clinic.DoctorOutput{Action: Treat, Diagnosis: diagnosis}
	for _, c := range cands {
		if len(diagnosis) == 0 || textmatch.Normalize(c.Name()) != textmatch.Normalize(diagnosis[0]) {
			continue
		}
		for _, card := range c.Cards() {
			for _, p := range card.Plan {
				if !slices.Contains(o.Plan, p) {
					o.Plan = append(o.Plan, p)
				}
			}
			for _, p := range card.Followup {
				if !slices.Contains(o.Followup, p) {
					o.Followup = append(o.Followup, p)
				}
			}
		}
		o.CardIDs = actor.CardIDs([]actor.Candidate{c}, 1)
	}
	if len(o.Plan) == 0 {
		o.Plan = []string{"symptomatic treatment and safety-netting advice", "review in one to two weeks, sooner if worse"}
	}
	return o
}

// referNow returns the referral to make: the first whose red flags the
// revealed information shows enough of, or one whose diagnosis leads the
// candidates with at least one of its red flags shown.
func referNow(cands []actor.Candidate, refs []referralCard) (referralCard, bool) {
	for _, r := range refs {
		if r.seen >= r.need {
			return r, true
		}
	}
	for _, r := range refs {
		if r.seen > 0 && len(cands) > 0 && textmatch.Normalize(r.diagnosis) == textmatch.Normalize(cands[0].Name()) {
			return r, true
		}
	}
	return referralCard{}, false
}

// localCandidate is the leading candidate that no referral card claims, or
// the leading one when every candidate has a referral card whose red flags
// were not seen.
func localCandidate(cands []actor.Candidate, refs []referralCard) (actor.Candidate, bool) {
	for _, c := range cands {
		claimed := false
		for _, r := range refs {
			claimed = claimed || textmatch.Normalize(r.diagnosis) == textmatch.Normalize(c.Name())
		}
		if !claimed {
			return c, true
		}
	}
	if len(cands) > 0 {
		return cands[0], true
	}
	return actor.Candidate{}, false
}

// referralCard is a referral card as the doctor reads it.
type referralCard struct {
	card, diagnosis      string
	destination, urgency string
	topics, exams        []string
	shown, unseen        []string // red flags the revealed information shows, and not
	seen, need           int
	similarity           float64
}

// referrals reads the retrieved referral cards (ReferAction), best
// first: the most red flags shown, then the most similar. A card asks for
// referral once at least two of its red flags are shown (all of them when it
// has fewer).
func referrals(cards []clinic.CardHint, shown []map[string]bool) []referralCard {
	var out []referralCard
	for _, c := range cards {
		dest, urgency, ok := ParseReferAction(c.Action)
		if !ok || len(c.Evidence) == 0 {
			continue
		}
		r := referralCard{card: c.ID, diagnosis: c.Diagnosis, destination: dest, urgency: urgency, topics: c.Ask, exams: c.Tests,
			need: min(2, len(c.Evidence)), similarity: c.Similarity}
		for _, f := range c.Evidence {
			if shows(shown, f) {
				r.shown = append(r.shown, f)
			} else {
				r.unseen = append(r.unseen, f)
			}
		}
		r.seen = len(r.shown)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b referralCard) int {
		switch {
		case a.seen != b.seen:
			return b.seen - a.seen
		case a.similarity > b.similarity:
			return -1
		case a.similarity < b.similarity:
			return 1
		}
		return strings.Compare(a.card, b.card)
	})
	return out
}

var sentenceEnd = regexp.MustCompile(`[.;!?]\s`)

// negation marks a sentence that denies what it mentions.
var negation = regexp.MustCompile(`(?i)\b(no|not|never|none|denies|without any|nothing)\b|n't\b|\bnormal\b`)

// affirmed is what the doctor was told as token sets, one per sentence,
// leaving out sentences that deny ("I have not lost weight", "troponin not
// raised"): a red flag must be shown, not merely mentioned.
func affirmed(v clinic.DoctorView) []map[string]bool {
	texts := []string{v.OpeningComplaint}
	for _, ex := range v.Exchanges {
		if ex.Answered {
			texts = append(texts, ex.Answer)
		}
	}
	for _, r := range v.Results {
		if r.Status == clinic.StatusReturned {
			texts = append(texts, r.Text)
		}
	}
	var out []map[string]bool
	for _, t := range texts {
		for _, s := range sentenceEnd.Split(t+" ", -1) {
			if strings.TrimSpace(s) != "" && !negation.MatchString(s) {
				out = append(out, textmatch.Set(s))
			}
		}
	}
	return out
}

// flagAt is the share of a red flag's words one sentence must hold to show it:
// high, since a manageable look-alike shares much of the wording.
const flagAt = 0.75

// shows reports whether one sentence holds most of a red flag's words.
func shows(sentences []map[string]bool, flag string) bool {
	f := textmatch.Set(flag)
	for _, s := range sentences {
		if textmatch.Coverage(f, s) >= flagAt {
			return true
		}
	}
	return false
}

// flagTopic is the history topic a red flag asks about: the one its words
// cue, else the first the card learned, else associated symptoms.
func flagTopic(flag string, learned []string) string {
	if ts := episode.QuestionTopics(flag); len(ts) > 0 {
		return ts[0]
	}
	if len(learned) > 0 {
		return learned[0]
	}
	return clinic.TopicAssociated
}
