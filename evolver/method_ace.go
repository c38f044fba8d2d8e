package evolver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// ACE is agentic context engineering (Zhang, Hu, Upasani, Ma, Hong,
// Kamanuru, Rainton, Wu, Ji, Li, Thakker, Zou, Olukotun 2025, "Agentic
// Context Engineering: Evolving Contexts for Self-Improving Language
// Models", arXiv 2510.04618; section not verified):
// the context is a playbook of itemised bullets, each with an ID and
// helpful/harmful counters. Three roles share the work: the generator (the
// doctor) plays the episode with the playbook; the reflector reads the
// trace and its feedback, tags the bullets that helped or hurt and distils
// new insights; the curator turns the insights into delta entries that are
// merged into the playbook deterministically, never by rewriting it whole,
// and a grow-and-refine step de-duplicates near-identical bullets.
//
// In clinevo the playbook is the rule book (its bullets are rules, with the
// counters on clinic.Rule). With the evolver role the model reflects: it
// tags bullets and proposes insights. The mechanical reflector tags a
// bullet helpful when a graded action of this episode supports it (as Cite
// counts citations) and harmful when the episode took the action the bullet
// prescribes and the grader called it inefficient or a critical error; its
// insights are clinevo's proposals from the graded actions. With a model,
// one call tags and proposes the delta bullets (reflector and curator);
// merging the deltas is deterministic under every role, as ACE's merge is:
// an insight that near-duplicates a bullet
// (similarity at least evolver.same_at, or the same action on the same
// target) counts as that bullet helping again; otherwise it is added.
// Then duplicates are merged (counters summed into the older) and, over
// B_P, the bullet with the lowest helpful − harmful leaves (clinevo's cap:
// ACE's playbook grows without one).
type ACE struct{ Model Model }

type aceReply struct {
	Tags []struct {
		ID  string `json:"id"`
		Tag string `json:"tag"` // helpful | harmful | neutral
	} `json:"tags"`
	Insights []string `json:"insights"`
}

// Evolve reflects on the episode and curates the playbook.
func (a ACE) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !cfg.Rules() {
		return out, nil
	}
	type bullet struct{ ID, Text string }
	req := struct {
		Presentation string
		Transcript   []string
		Graded       []grader.ActionGrade
		Playbook     []bullet
	}{Presentation: in.Opening, Transcript: transcriptLines(in), Graded: in.Grade.Actions}
	for _, r := range rules {
		req.Playbook = append(req.Playbook, bullet{r.ID, r.Text})
	}
	var reply aceReply
	ok, err := ask(ctx, a.Model, "ace_reflect", req, &reply)
	if err != nil {
		return Output{}, err
	}
	tags := map[string]string{}
	var insights []string
	if ok {
		for _, t := range reply.Tags {
			tags[t.ID] = strings.ToLower(strings.TrimSpace(t.Tag))
		}
		insights = reply.Insights
	} else {
		tags = aceTags(in, rules)
		for _, d := range proposals(cfg, in, ContextWords(in.Opening)) {
			insights = append(insights, ruleText(d))
		}
	}
	for i := range out.Rules {
		switch tags[out.Rules[i].ID] {
		case "helpful":
			out.Rules[i].Helpful++
			out.Edits = append(out.Edits, "ace helpful "+out.Rules[i].ID)
		case "harmful":
			out.Rules[i].Harmful++
			out.Edits = append(out.Edits, "ace harmful "+out.Rules[i].ID)
		}
	}
	screen := NewScreen(cfg, in.Forbidden, truth)
	var log []string
	out.Rules, log, out.Skipped = Curate(out.Rules, insights, in.Episode, cfg, screen)
	out.Edits = append(out.Edits, log...)
	return out, nil
}

// aceTags is the mechanical reflector's tagging (see ACE).
func aceTags(in Input, rules []clinic.Rule) map[string]string {
	tags := map[string]string{}
	opening := textmatch.Set(in.Opening)
	for _, r := range rules {
		d, ok := clinic.ParseRule(r.Text)
		if !ok || (d.When != "" && textmatch.Coverage(textmatch.Set(d.When), opening) < 0.5) {
			continue
		}
		for _, g := range in.Grade.Actions {
			if g.Turn >= len(in.Events) {
				continue
			}
			ev := in.Events[g.Turn]
			switch {
			case supports(d, ev, g.Label):
				if tags[r.ID] == "" {
					tags[r.ID] = "helpful"
				}
			case (g.Label == grader.Inefficient || g.Label == grader.CriticalError) && supports(d, ev, grader.HighYield):
				tags[r.ID] = "harmful" // the bullet prescribed what the grader faulted
			}
		}
	}
	return tags
}

// Curate is ACE's curator and grow-and-refine step: insights merged into
// the playbook as delta entries, near-duplicates de-duplicated, the book
// held to B_P (see ACE). It returns the new playbook, a log and the
// insights the screen rejected.
func Curate(rules []clinic.Rule, insights []string, episode int, cfg settings.Evolver, screen *Screen) (out []clinic.Rule, log, skipped []string) {
	out = append([]clinic.Rule(nil), rules...)
	for i, text := range insights {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if why := screen.Leaks(text); why != "" {
			skipped = append(skipped, "insight rejected: "+why)
			continue
		}
		if j := duplicateOf(out, text, cfg.SameAt); j >= 0 {
			out[j].Helpful++
			log = append(log, "ace reinforce "+out[j].ID)
			continue
		}
		id := fmt.Sprintf("b%d-%d", episode, i+1)
		out = append(out, clinic.Rule{ID: id, Text: text, Created: episode, Helpful: 1})
		log = append(log, "ace add "+id)
	}
	// Grow and refine: merge near-duplicate bullets into the older one.
	out, merged := Distinct(out, cfg.SameAt)
	for _, m := range merged {
		log = append(log, "ace "+m)
	}
	for len(out) > cfg.RuleBudget {
		worst := 0
		for i, r := range out {
			if net(r) < net(out[worst]) || (net(r) == net(out[worst]) && r.Created < out[worst].Created) {
				worst = i
			}
		}
		log = append(log, "ace drop "+out[worst].ID)
		out = append(out[:worst], out[worst+1:]...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out, log, skipped
}

func net(r clinic.Rule) int { return r.Helpful - r.Harmful }

// duplicateOf is the index of the bullet text near-duplicates, -1 for none.
func duplicateOf(rules []clinic.Rule, text string, at float64) int {
	for i, r := range rules {
		if sameBullet(r.Text, text, at) {
			return i
		}
	}
	return -1
}

// sameBullet reports whether two bullets say the same: the same text (up to
// case and spacing), the same directive
// (verb and target) with overlapping contexts, or texts at least `at`
// similar.
func sameBullet(a, b string, at float64) bool {
	if strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")) {
		return true
	}
	da, oka := clinic.ParseRule(a)
	db, okb := clinic.ParseRule(b)
	if oka && okb {
		if da.Verb != db.Verb || !strings.EqualFold(da.Target, db.Target) {
			return false
		}
		return da.When == "" || db.When == "" || similar(da.When, db.When) >= at
	}
	return similar(a, b) >= at
}
