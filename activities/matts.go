package activities

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
)

// attemptInputs are a MaTTS case's other attempts as the evolver reads
// them: each one's stored trace and grade, read like the first's. Nothing
// of them travels in the workflow history but their episode IDs.
func (a *Activities) attemptInputs(ctx context.Context, d runner.Deps, c clinic.Case, ref EpisodeRef, m runner.Meta) ([]evolver.Input, error) {
	var out []evolver.Input
	for _, id := range ref.Attempts {
		t, err := a.Results.Trace(ctx, id)
		if err != nil {
			return nil, err
		}
		var g grader.ProcessGrade
		if err := a.Results.Grade(ctx, id, &g); err != nil {
			return nil, err
		}
		am := m
		am.EpisodeID = id
		in, err := runner.EvolverInput(c, t, g, am, d)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// attemptsOf are the outcomes of a MaTTS case's K attempts for its record:
// the first (the record's own trace) and the others from their stored
// traces; nil without MaTTS.
func (a *Activities) attemptsOf(ctx context.Context, first clinic.Trace, in RecordInput) (*results.Attempts, error) {
	if len(in.Attempts) == 0 {
		return nil, nil
	}
	at := &results.Attempts{IDs: []string{in.EpisodeID}, S: []float64{first.Scores.S}, Pass: []bool{first.Scores.Pass}}
	for _, id := range in.Attempts {
		t, err := a.Results.Trace(ctx, id)
		if err != nil {
			return nil, err
		}
		at.IDs, at.S, at.Pass = append(at.IDs, id), append(at.S, t.Scores.S), append(at.Pass, t.Scores.Pass)
	}
	for i, s := range at.S {
		at.BestS = max(at.BestS, s)
		at.BestPass = at.BestPass || at.Pass[i]
	}
	return at, nil
}

// attemptRefs are a batch's episodes with their MaTTS attempts, each
// attempt named like its first (Learn grades any without a stored grade).
func attemptRefs(refs []EpisodeRef) []EpisodeRef {
	var out []EpisodeRef
	for _, ref := range refs {
		out = append(out, ref)
		for _, id := range ref.Attempts {
			at := ref
			at.EpisodeID, at.Attempts = id, nil
			out = append(out, at)
		}
	}
	return out
}
