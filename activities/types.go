package activities

import "github.com/clinevo/clinevo/activities/acts"

// The activities' inputs and results are declared in package acts, which the
// workflows call the activities through without linking this package; here
// they keep their names in the implementation's terms (aliases: one type each).
type (
	EpisodeInput   = acts.EpisodeInput
	TurnInput      = acts.TurnInput
	TurnSummary    = acts.TurnSummary
	EpisodeRef     = acts.EpisodeRef
	GradeInput     = acts.GradeInput
	EvolveInput    = acts.EvolveInput
	EvolveOutput   = acts.EvolveOutput
	EpisodeLesson  = acts.EpisodeLesson
	RecordInput    = acts.RecordInput
	StreamPlan     = acts.StreamPlan
	ExperimentPlan = acts.ExperimentPlan
	RunCompletion  = acts.RunCompletion
	RunResultReply = acts.RunResultReply
	BreedInput     = acts.BreedInput
)
