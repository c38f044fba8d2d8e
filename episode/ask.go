package episode

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
)

// AskPatient answers one ASK for a benchmark with its own environment: the
// same answer cache per episode, held-back facts and patient call as
// Episode's ASK, over the events so far. It fills ev and
// returns the patient's error, a transient fault.
func AskPatient(ctx context.Context, c clinic.Case, p Patient, events []clinic.Event, out clinic.DoctorOutput, ev *clinic.Event) error {
	return AskPatientUnder(ctx, c, p, Rules{}, events, out, ev)
}

// AskPatientUnder is AskPatient under rules: with rules.Invent the answer
// may go beyond the record, each detail cached by topic for the episode (as
// Med-Inquire's patient answers).
func AskPatientUnder(ctx context.Context, c clinic.Case, p Patient, rules Rules, events []clinic.Event, out clinic.DoctorOutput, ev *clinic.Event) error {
	e := &Episode{c: c, rules: rules, roles: Roles{Patient: p}, Log: Log{events: events}}
	return e.ask(ctx, out, ev)
}
