package actor

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
