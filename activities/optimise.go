package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// Breed makes one child rule book (EvoPrompt's crossover and mutation,
// GEPA's reflective mutation of a Pareto-front parent) from the graded
// development episodes of its parents. The child is stored before it is
// returned (the first write wins), so a retry returns the same child even
// when the evolver role samples.
func (a *Activities) Breed(ctx context.Context, in BreedInput) (_ []clinic.Rule, err error) {
	defer classified(&err)
	key := contract.DevRunID(in.Run, in.Gen, in.Slot) + "/breed"
	var child []clinic.Rule
	if err := a.Results.Proposal(ctx, key, &child); err == nil {
		return child, nil
	} else if !errors.Is(err, results.ErrNotFound) {
		return nil, err
	}
	d, err := a.runDeps(in.Settings)
	if err != nil {
		return nil, err
	}
	cfg := in.Settings.Evolver
	start := time.Now()
	err = a.metered(ctx, key, func(ctx context.Context) error {
		switch cfg.Method {
		case settings.MethodGEPA:
			p := evolver.GEPAParent(in.Run, in.Pool, in.Gen, in.Slot)
			fb, err := a.devFeedback(ctx, d, in.Corpus, in.Pool[p].Run)
			if err != nil {
				return err
			}
			child, err = evolver.GEPA{Model: d.Roles.Model}.GEPAChild(ctx, cfg, in.Pool[p], fb, in.Gen, in.Slot)
			return err
		case settings.MethodEvoPrompt:
			p1, p2 := evolver.EvoPromptParents(in.Run, in.Pool, in.Gen, in.Slot)
			fb, err := a.devFeedback(ctx, d, in.Corpus, in.Pool[p1].Run)
			if err != nil {
				return err
			}
			child, err = evolver.EvoPrompt{Model: d.Roles.Model}.EvoPromptChild(ctx, cfg, in.Pool[p1], in.Pool[p2], fb, in.Gen, in.Slot)
			return err
		}
		return badInput(fmt.Errorf("evolver.method %q has no development phase", cfg.Method))
	})
	if err != nil {
		return nil, err
	}
	if child == nil {
		child = []clinic.Rule{}
	}
	// Breeding is the development phase's update time (the report adds it to
	// the method's update cost).
	if err := a.Results.AddTime(ctx, key, results.PhaseUpdate, msSince(start)); err != nil {
		return nil, err
	}
	if err := a.Results.PutProposal(ctx, key, child); err != nil {
		return nil, err
	}
	if err := a.Results.Proposal(ctx, key, &child); err != nil { // a racing worker's child wins
		return nil, err
	}
	activity.GetLogger(ctx).Info("development candidate bred", "run", in.Run, "method", cfg.Method, "generation", in.Gen, "slot", in.Slot,
		"rules", len(child), "ms", msSince(start))
	return child, nil
}

// devFeedback are the graded development episodes of a development run, in
// case order: what a reflection or mutation reads. A development episode is
// graded once (its grade is stored) by the run's process grader.
func (a *Activities) devFeedback(ctx context.Context, d runner.Deps, corpusRef, run string) ([]evolver.Input, error) {
	recs, err := a.Results.Records(ctx, run)
	if err != nil {
		return nil, err
	}
	g, err := d.Grader()
	if err != nil {
		return nil, err
	}
	var out []evolver.Input
	for _, rec := range recs {
		c, err := a.Corpora.Case(corpusRef, rec.CaseID)
		if err != nil {
			return nil, err
		}
		t, err := a.Results.Trace(ctx, rec.EpisodeID)
		if err != nil {
			return nil, err
		}
		var pg grader.ProcessGrade
		if err := a.Results.Grade(ctx, rec.EpisodeID, &pg); errors.Is(err, results.ErrNotFound) {
			if pg, err = g.GradeProcess(ctx, runner.ProcessInput(t, d.Settings), runner.WriteBack(d.Bench, &c, t, d.Settings)); err != nil {
				return nil, fmt.Errorf("process grader: %w", err)
			}
			if err := a.Results.PutGrade(ctx, rec.EpisodeID, pg); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		}
		in, err := runner.EvolverInput(c, t, pg, runner.Meta{RunID: run, EpisodeID: rec.EpisodeID, Number: rec.Number, Pass: rec.Pass, Stage: rec.Stage}, d)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// DevScores are the scores S of a development run's episodes in case order:
// a candidate's row of the development score table.
func (a *Activities) DevScores(ctx context.Context, run string) (_ []float64, err error) {
	defer classified(&err)
	recs, err := a.Results.Records(ctx, run)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(recs))
	for i, r := range recs {
		out[i] = r.Scores.S
	}
	return out, nil
}
