// Package acts is the contract between the workflows and their activities:
// each activity's name, the types it takes and returns, and those types. The
// workflows call the activities through it, by name, so they do not link
// their implementation (package activities: model clients, stores,
// telemetry); the worker registers the methods of activities.Activities,
// whose names these are, and a test there checks that every one matches.
// The names are in recorded histories: a name never changes.
package acts

import (
	"context"
	"reflect"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/grader"
)

// Activity is an activity that takes In and returns Out (None: only an
// error), by the name the worker registers it under.
type Activity[In, Out any] string

// Activity2 is an activity that takes two arguments.
type Activity2[In1, In2, Out any] string

// None is the result of an activity that returns only an error.
type None struct{}

// The activities, in the order of a stream's life.
const (
	ValidateStream    Activity[contract.StreamSpec, StreamPlan]         = "ValidateStream"
	PrepareEvaluation Activity[contract.EvalSpec, contract.EvalSpec]    = "PrepareEvaluation"
	PlanCases         Activity2[string, int, StreamPlan]                = "PlanCases" // a corpus reference and a limit
	Decide            Activity[TurnInput, TurnSummary]                  = "Decide"
	Step              Activity[TurnInput, TurnSummary]                  = "Step"
	Score             Activity[EpisodeInput, contract.ScoreSummary]     = "Score"
	Grade             Activity[GradeInput, map[grader.Label]int]        = "Grade"
	Evolve            Activity[EvolveInput, EvolveOutput]               = "Evolve"
	Learn             Activity[EvolveInput, EvolveOutput]               = "Learn"
	Record            Activity[RecordInput, None]                       = "Record"
	RunSpend          Activity[string, contract.Spend]                  = "RunSpend"
	ExperimentSpend   Activity[[]string, contract.Spend]                = "ExperimentSpend"
	CompleteRun       Activity[RunCompletion, None]                     = "CompleteRun"
	RunResult         Activity[string, RunResultReply]                  = "RunResult"
	PutExperiment     Activity[contract.ExperimentSpec, ExperimentPlan] = "PutExperiment"
	Breed             Activity[BreedInput, []clinic.Rule]               = "Breed"
	DevScores         Activity[string, []float64]                       = "DevScores"
)

// Declared is an activity as this package declares it.
type Declared interface {
	// Name is the name the worker registers the activity under.
	Name() string
	// Func is the type of the activity's function (a method value of
	// activities.Activities).
	Func() reflect.Type
}

// All are every activity the worker registers.
var All = []Declared{ValidateStream, PrepareEvaluation, PlanCases, Decide, Step, Score, Grade, Evolve, Learn, Record,
	RunSpend, ExperimentSpend, CompleteRun, RunResult, PutExperiment, Breed, DevScores}

// Name implements Declared.
func (a Activity[In, Out]) Name() string { return string(a) }

// Func implements Declared.
func (a Activity[In, Out]) Func() reflect.Type {
	if reflect.TypeFor[Out]() == reflect.TypeFor[None]() {
		return reflect.TypeFor[func(context.Context, In) error]()
	}
	return reflect.TypeFor[func(context.Context, In) (Out, error)]()
}

// Name implements Declared.
func (a Activity2[In1, In2, Out]) Name() string { return string(a) }

// Func implements Declared.
func (a Activity2[In1, In2, Out]) Func() reflect.Type {
	return reflect.TypeFor[func(context.Context, In1, In2) (Out, error)]()
}
