package gpagent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

var _ evolver.Lessons = Benchmark{}

// Edits are none: the workflow's lessons are cards (Cards).
func (Benchmark) Edits(settings.Evolver, evolver.Input, *grader.Key) []evolver.Edit { return nil }

// flagList spells red flags as the evolver's cards list items.
func flagList(flags []string) string {
	if len(flags) == 0 {
		return "none"
	}
	return strings.Join(flags, ", ")
}

// Cards adds what a GPAgentBench episode (§4) teaches to the given cards
// (the built-in evolver's or the model's): the examinations that paid off,
// and red flags and referral. With the write-back, the cards of a case that
// needed referral become referral cards: their evidence is the case's red
// flags (what tells this presentation from its manageable look-alike), their
// action where and how urgently to refer (ReferAction), and they add
// the history topics, examinations and tests that showed the flags; the cards
// of a manageable case that was referred say to manage it locally
// (ManageAction). Score-only, the success card of a referral that
// scored full marks becomes a referral card whose red flags are the replies
// the graded trace marks high-yield, and a referral that scored 0 gives a
// correction to manage locally. Other episodes pass unchanged.
func (Benchmark) Cards(in evolver.Input, truth *grader.Key, cards []clinic.Card) []clinic.Card {
	if !ownActions(in.Events) {
		return cards
	}
	gk, hasKey := keyOf(truth)
	labels := map[int]grader.Label{}
	for _, a := range in.Grade.Actions {
		labels[a.Turn] = a.Label
	}
	var exams []string
	for _, ev := range in.Events {
		if target := StepOfEvent(ev).Target; ev.Action == BodyExam && ev.Status == clinic.StatusReturned && labels[ev.Turn] == grader.HighYield && !slices.Contains(exams, target) {
			exams = append(exams, target)
		}
	}
	ending := EndingOf(in.Final)
	referred := ending.Disposition == PathwayRefer
	out := slices.Clone(cards)
	for i := range out {
		c := &out[i]
		if c.Diagnosis != "" {
			c.Tests = append(slices.Clone(c.Tests), exams...)
		}
		switch {
		case hasKey && gk.Pathway == PathwayRefer && gk.Refer != nil && gk.Refer.Destination != "" && c.Diagnosis != "":
			refer(c, in, gk.Refer.RedFlags, gk.Refer.Destination, gk.Refer.Urgency)
		case hasKey && gk.Pathway == PathwayManage && referred && c.Diagnosis != "":
			c.Action = ManageAction
			c.Text += "; AVOID referral: manageable in primary care"
		case truth == nil && referred && in.Outcome.S >= 1 && c.Kind == clinic.CardSuccess:
			var flags []string
			for _, ev := range in.Events {
				if ev.Status == clinic.StatusReturned && labels[ev.Turn] == grader.HighYield && ev.Reply != "" && ev.Action != Refer {
					flags = append(flags, ev.Reply)
				}
			}
			if len(flags) > 0 {
				refer(c, in, flags, ending.Destination, ending.Urgency)
			}
		case truth == nil && referred && in.Outcome.S == 0 && c.Kind == clinic.CardCorrection:
			c.Action = ManageAction
			c.Text += "; AVOID referral: the referral was judged wrong"
		}
	}
	return out
}

// refer makes a card a referral card: the red flags as its evidence, the
// referral as its action, and the sources of the flags to gather.
func refer(c *clinic.Card, in evolver.Input, flags []string, destination, urgency string) {
	c.Evidence = slices.Clone(flags)
	c.Action = ReferAction(destination, urgency)
	topics, targets := flagSources(in.Events, flags)
	for _, t := range topics {
		if !slices.Contains(c.Ask, t) {
			c.Ask = append(c.Ask, t)
		}
	}
	for _, t := range targets {
		if !slices.Contains(c.Tests, t) {
			c.Tests = append(c.Tests, t)
		}
	}
	c.Text = fmt.Sprintf("IF %s WITH RED FLAGS %s THEN REFER to %s (%s); %s", in.Opening, flagList(flags), destination, urgency, c.Text)
	c.SearchText += " " + strings.Join(flags, " ")
}

// ownActions reports whether an episode took one of the workflow's own
// actions: one that took none teaches nothing of them.
func ownActions(events []clinic.Event) bool {
	for _, ev := range events {
		switch ev.Action {
		case BodyExam, Diagnose, Treat, Refer:
			return true
		}
	}
	return false
}

// flagSources are the history topics and the examination targets and tests
// whose replies showed a red flag, with the topics each flag's own words cue.
func flagSources(events []clinic.Event, flags []string) (topics, targets []string) {
	add := func(xs *[]string, x string) {
		if x != "" && !slices.Contains(*xs, x) {
			*xs = append(*xs, x)
		}
	}
	for _, ev := range events {
		if ev.Status != clinic.StatusReturned || !ShowsRedFlag(ev.Reply, flags) {
			continue
		}
		switch ev.Action {
		case clinic.Ask:
			for _, t := range evolver.TopicsOf(ev) {
				add(&topics, t)
			}
		case BodyExam:
			add(&targets, StepOfEvent(ev).Target)
		case clinic.RequestTest:
			add(&targets, ev.Test)
		}
	}
	for _, f := range flags {
		for _, t := range episode.QuestionTopics(f) {
			add(&topics, t)
		}
	}
	return topics, targets
}
