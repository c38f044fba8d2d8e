// Package ddxplus is DDXPlus (Fansi Tchango, Goel, Wen, Martel, Ghosn,
// NeurIPS 2022 Datasets and Benchmarks, arXiv 2205.09148; CC BY 4.0) played
// two ways: under StreamBench's protocol (Wu, Tam, Lin, Chen, Lee, NeurIPS
// 2024 Datasets and Benchmarks, arXiv 2406.08747), where the whole evidence
// profile is the input, the answer is one of the 49 pathologies and the
// learner hears only whether it was right; and interactively, where the
// patient opens with one evidence, the doctor asks for the others by their
// questions and ends with a pathology and a differential, scored with
// DDXPlus's own metrics. It ships the release's dictionaries and 300 test
// patients (data/), imports a release's patients file, and has a built-in
// doctor that learns only from the cards the learning methods write.
package ddxplus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "ddxplus"

// Benchmark is DDXPlus.
type Benchmark struct{}

var (
	_ bench.Benchmark = Benchmark{}
	_ bench.Budgeter  = Benchmark{}
)

// Name is "ddxplus".
func (Benchmark) Name() string { return Name }

// Actions are FINALIZE in stream mode, ASK and FINALIZE interactively.
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind {
	if ep, err := EpisodeOf(s); err == nil && ep.Mode == ModeStream {
		return []clinic.ActionKind{clinic.Finalize}
	}
	return []clinic.ActionKind{clinic.Ask, clinic.Finalize}
}

// Validate checks the mode and, in stream mode, the feedback.
func (Benchmark) Validate(s settings.Settings) error {
	ep, err := EpisodeOf(s)
	if err != nil {
		return err
	}
	return ep.validate(s)
}

// ValidateCase checks a case that holds DDXPlus's parts: its decoded
// profile with every evidence known to the release's dictionary, an initial
// evidence among them, and a pathology that is one of the release's 49. A
// case without them passes, as every benchmark's check does (corpus.Validate
// runs them all).
func (Benchmark) ValidateCase(c *clinic.Case) error {
	fail := func(field, msg string, args ...any) error {
		return corpus.FieldError{Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	var r Record
	if err := c.Exam.Ext.Decode(&r); err != nil {
		return fail("exam_view.evidences", "want the decoded evidences: %v", errors.Unwrap(err))
	}
	var k Key
	if err := c.Manager.Ext.Decode(&k); err != nil {
		return fail("manager_view.differential", "want a list of pathologies with probabilities: %v", errors.Unwrap(err))
	}
	if len(r.Findings) == 0 && r.Initial == "" && len(k.Differential) == 0 {
		return nil
	}
	d, err := Embedded()
	if err != nil {
		return err
	}
	initial := false
	for i, f := range r.Findings {
		if _, ok := d.Evidence(f.Code); !ok {
			return fail(fmt.Sprintf("exam_view.evidences[%d].code", i), "unknown evidence %q", f.Code)
		}
		initial = initial || f.Code == r.Initial
	}
	switch {
	case len(r.Findings) == 0:
		return fail("exam_view.evidences", "a DDXPlus case needs its evidence profile")
	case !initial:
		return fail("exam_view.initial_evidence", "%q is not one of the evidences", r.Initial)
	case !d.known(c.Manager.Diagnosis.Name):
		return fail("manager_view.diagnosis.display_name", "%q is not one of the release's 49 pathologies", c.Manager.Diagnosis.Name)
	}
	for i, w := range k.Differential {
		if !d.known(w.Pathology) {
			return fail(fmt.Sprintf("manager_view.differential[%d].pathology", i), "%q is not one of the release's 49 pathologies", w.Pathology)
		}
	}
	return nil
}

// Start begins or rebuilds an encounter; it calls no role.
func (Benchmark) Start(c clinic.Case, s settings.Settings, _ episode.Roles, events []clinic.Event) (episode.Env, error) {
	return Start(c, s, events)
}

// Budgets is Tmax.
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	return []bench.Budget{{Name: "Tmax", Value: strconv.Itoa(s.Episode.MaxTurns)}}
}

// Score scores a finished encounter against the case's pathology and
// differential (Scores, score.go).
func (Benchmark) Score(_ context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	ep, err := EpisodeOf(in.Settings)
	if err != nil {
		return clinic.Scores{}, err
	}
	d, err := Embedded()
	if err != nil {
		return clinic.Scores{}, err
	}
	final, _ := in.Env.Final()
	return d.Scores(in.Case, ep.Mode, final.Diagnosis, in.Env.Events()), nil
}
