package gpagent_test

import (
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
)

// ending is a closing action's final output with how it ended.
func ending(f clinic.FinalOutput, x gpagent.Ending) *clinic.FinalOutput {
	f = gpagent.WithEnding(f, x)
	return &f
}

// referTo is a refer action.
func referTo(destination, urgency string) clinic.DoctorOutput {
	return gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.Refer}, gpagent.Output{Destination: destination, Urgency: urgency})
}
