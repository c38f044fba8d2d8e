package workflows_test

import (
	"errors"
	"reflect"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/activities/acts"
)

// newEnv is a test environment with a stand-in registered for every activity
// under the name the worker registers it by, so that env.OnActivity mocks it
// by that name without linking the activities' implementation. A call no
// test mocked fails.
func newEnv(s *testsuite.WorkflowTestSuite) *testsuite.TestWorkflowEnvironment {
	env := s.NewTestWorkflowEnvironment()
	for _, a := range acts.All {
		fn := reflect.MakeFunc(a.Func(), func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, a.Func().NumOut())
			for i := range out {
				out[i] = reflect.Zero(a.Func().Out(i))
			}
			out[len(out)-1] = reflect.ValueOf(errors.New("activity " + a.Name() + " is not mocked")).Convert(a.Func().Out(len(out) - 1))
			return out
		})
		env.RegisterActivityWithOptions(fn.Interface(), activity.RegisterOptions{Name: a.Name()})
	}
	return env
}
