package view

import (
	"context"
	"html/template"
	"net/http"
	"slices"
	"sort"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/results"
)

// comparePage compares recorded runs as `clinevo compare` does, with the
// learning curves overlaid; without two runs it is the picker alone.
type comparePage struct {
	Title   string
	Choices []runChoice
	Note    string // why nothing is compared yet
	analysis.RunComparison
	Charts []template.HTML
}

// runChoice is a run the picker offers.
type runChoice struct {
	Run, Kind string
	Episodes  int
	Picked    bool
}

// compare serves /compare?run=A&run=B[&run=...].
func (s *Server) compare(ctx context.Context, r *http.Request) (any, error) {
	picked := r.URL.Query()["run"]
	p := comparePage{Title: "compare runs"}
	if err := s.addChoices(ctx, &p, picked); err != nil {
		return nil, err
	}
	if len(picked) < 2 {
		p.Note = "Pick two or more runs: the first is compared with each of the others."
		return p, nil
	}
	runs, err := analysis.LoadCompared(ctx, s.o.Results, s.o.Benchmarks, picked)
	if err != nil {
		return nil, err // an unknown run: not found
	}
	p.RunComparison = analysis.CompareRuns(runs)
	var conds []analysis.ConditionReport
	for _, run := range runs {
		c := analysis.Condition(run.Run, run.Kind, run.Run, run.Records)
		c.Bench = run.Bench
		conds = append(conds, c)
	}
	if slices.ContainsFunc(conds, func(c analysis.ConditionReport) bool { return len(c.Stages) > 0 }) {
		p.Charts = analysis.StageCharts(analysis.Report{Conditions: conds})
	}
	p.Title = "compare " + picked[0]
	return p, nil
}

// addChoices lists every run with scored episodes, described runs first in
// the store's order, then the rest (evaluations) by name.
func (s *Server) addChoices(ctx context.Context, p *comparePage, picked []string) error {
	runs, counts, err := s.o.Results.Runs(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	add := func(run, kind string) {
		if counts[run] > 0 && !seen[run] {
			seen[run] = true
			p.Choices = append(p.Choices, runChoice{Run: run, Kind: kind, Episodes: counts[run], Picked: slices.Contains(picked, run)})
		}
	}
	for _, r := range runs {
		add(r.Run, r.Kind)
	}
	var rest []string
	for run := range counts {
		if !seen[run] {
			rest = append(rest, run)
		}
	}
	sort.Strings(rest)
	for _, run := range rest {
		add(run, "evaluation")
	}
	return nil
}

// episodePair is two episodes side by side (/compare/episode?a=ID&b=ID):
// each one's summary, linked to its own page.
type episodePair struct {
	Title string
	A, B  results.Record
}

func (s *Server) episodePair(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	a, b := q.Get("a"), q.Get("b")
	if a == "" || b == "" {
		return nil, badRequest("compare episode: the address needs ?a=EPISODE_ID&b=EPISODE_ID")
	}
	p := episodePair{Title: "episodes side by side"}
	var err error
	if p.A, _, err = s.o.Results.RecordTrace(ctx, a); err != nil {
		return nil, err
	}
	if p.B, _, err = s.o.Results.RecordTrace(ctx, b); err != nil {
		return nil, err
	}
	return p, nil
}
