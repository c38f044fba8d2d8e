// Package actor holds the doctor policies behind one interface: the built-in
// case-based clinician here, and model-backed doctors in package llm.
package actor

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
)

// Doctor decides the next action from the doctor's view alone.
type Doctor interface {
	// Decide returns the next action. An error is a transient fault (a model
	// endpoint down); a reply that cannot be parsed is a Decision with LLMError set.
	Decide(ctx context.Context, view clinic.DoctorView) (Decision, error)
}

// RefineChooser is a doctor that chooses when to refine its memory (ReMem's
// think, act or refine: clinic.DoctorOutput.Refine). A doctor that is not
// one has ReMem's mechanical refine step choose for it before every action.
type RefineChooser interface {
	ChoosesRefine() bool
}

// Decision is one doctor turn.
type Decision struct {
	Output   clinic.DoctorOutput
	LLMError bool
}
