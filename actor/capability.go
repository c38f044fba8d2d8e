package actor

import (
	"fmt"

	"github.com/clinevo/clinevo/settings"
)

// Policy is a benchmark's own built-in doctor: a capability a benchmark
// offers when its environment is not the shared question-and-test one
// (ARCHITECTURE.md, "Profiles"). The policy reads only the DoctorView and
// the benchmark's own view type in it.
type Policy interface {
	BuiltinDoctor() Doctor
}

// BuiltinFor is the built-in doctor of a benchmark b: its Policy, or the
// case-based clinician of the question-and-test environment.
func BuiltinFor(b any) Doctor {
	if p, ok := b.(Policy); ok {
		return p.BuiltinDoctor()
	}
	return Builtin{}
}

// Composer is a benchmark that builds the doctor a run plays from the run's
// doctor, under the run's settings (a capability): an ensemble of several
// of it, for instance, that aggregates what they decide.
type Composer interface {
	ComposeDoctor(d Doctor, s settings.Settings) Doctor
}

// ComposeFor is the doctor a run of benchmark b plays with d: b's
// composition of it, or d.
func ComposeFor(b any, d Doctor, s settings.Settings) Doctor {
	if c, ok := b.(Composer); ok {
		return c.ComposeDoctor(d, s)
	}
	return d
}

// CheckTextbook refuses settings that choose the built-in textbook doctor
// (roles.doctor.model: textbook) for a benchmark b with its own built-in
// doctor: the textbook doctor plays the shared question-and-test
// environment only. Spec validation calls it, so such a run is refused
// before it starts instead of retrying its first decision for ever.
func CheckTextbook(b any, name string, st settings.Settings) error {
	r := st.Roles["doctor"]
	if r.Model != settings.TextbookDoctor || (r.Backend != "" && r.Backend != settings.Builtin) {
		return nil
	}
	if _, own := b.(Policy); own {
		return fmt.Errorf("roles.doctor.model %s: the textbook doctor plays the shared question-and-test environment; benchmark %s has its own built-in doctor (leave roles.doctor.model unset for it)", settings.TextbookDoctor, name)
	}
	return nil
}
