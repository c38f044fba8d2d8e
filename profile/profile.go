// Package profile holds the benchmark environments clinevo plays over one
// loop (ARCHITECTURE.md, "Profiles"): each names its action set, renders the
// doctor's view, steps the environment and scores an episode; the stream,
// grading, evolution, memory, evaluation and reporting are shared.
package profile

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Profile is one benchmark environment.
type Profile interface {
	// Name is the settings value that selects it (settings.Profile).
	Name() string
	// Start begins an episode of c, or rebuilds one from its events without
	// calling any role.
	Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) episode.Env
	// Score scores a finished episode against the case's manager view; judge
	// nil is the built-in rubric judge.
	Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge grader.Judge) (clinic.Scores, error)
}

var registry = map[string]Profile{}

func register(p Profile) { registry[p.Name()] = p }

// Get returns the profile a run's settings name.
func Get(name string) (Profile, error) {
	if p, ok := registry[name]; ok {
		return p, nil
	}
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, fmt.Errorf("profile %q is not available, want one of %s", name, strings.Join(names, ", "))
}

// MedEvoEval is MedEvoEval's environment (§3.2–3.3): ASK, REQUEST_TEST,
// CALL_MDT and FINALIZE under Tmax and Emax, the catalog shown, and the
// manager's outcome and process scores.
type MedEvoEval struct{}

func init() { register(MedEvoEval{}) }

// Name is "medevoeval".
func (MedEvoEval) Name() string { return settings.MedEvoEval }

// Start begins or rebuilds an episode.
func (MedEvoEval) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) episode.Env {
	return episode.Restore(c, s.Episode, episode.MedEvoEvalRules(), roles, events)
}

// Score is the manager's judgement combined with the process metrics.
func (MedEvoEval) Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge grader.Judge) (clinic.Scores, error) {
	if judge == nil {
		judge = grader.RubricJudge{W: s.Scoring}
	}
	final, _ := env.Final()
	j, err := judge.Judge(ctx, c, env.Revealed(), final)
	if err != nil {
		return clinic.Scores{}, fmt.Errorf("judge: %w", err)
	}
	return grader.Combine(c, s, env.Events(), final, j), nil
}

// MedInquire is EvoClinician's Med-Inquire (§3 and appendix): the doctor asks,
// orders tests by free text without a list, and submits a diagnosis alone; a
// test the case does not record is NOT AVAILABLE, an unknown test pays the
// fixed default price; the patient may answer beyond the record with
// consistent details; the judge grades the diagnosis 0–100 and the cost C is
// the base cost per turn plus every ordered test's price.
type MedInquire struct{}

func init() { register(MedInquire{}) }

// Name is "medinquire".
func (MedInquire) Name() string { return settings.MedInquire }

// Start begins or rebuilds an episode.
func (MedInquire) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) episode.Env {
	return episode.Restore(c, s.Episode, episode.MedInquireRules(), roles, events)
}

// Score is the judge's diagnosis grade S ∈ [0, 100] (kept as Grade, and as
// S/100 for the shared running means) with the encounter cost C = Σ c(a_t)
// and T counting every turn, the submission included (EvoClinician §3.6).
func (MedInquire) Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge grader.Judge) (clinic.Scores, error) {
	dj, ok := judge.(grader.DiagnosisJudge)
	if !ok {
		dj = grader.RubricJudge{W: s.Scoring}
	}
	final, _ := env.Final()
	g, err := dj.JudgeDiagnosis(ctx, c, final.Diagnosis)
	if err != nil {
		return clinic.Scores{}, fmt.Errorf("judge: %w", err)
	}
	events := env.Events()
	var sc clinic.Scores
	sc.Grade = g.Grade
	sc.S = float64(g.Grade) / 100
	sc.Diagnosis = sc.S
	sc.Strict = g.Grade == 100
	sc.Pass = sc.S >= s.Scoring.PassAt
	_, sc.E, sc.R = grader.Process(events, s.Episode)
	sc.T = len(events)
	for _, ev := range events {
		sc.Cost += ev.Cost
	}
	sc.Cost = math.Round(sc.Cost*1e4) / 1e4
	sc.Referral = grader.ReferralNotScored
	sc.MustAsk, sc.Required = 1, 1
	return sc, nil
}
