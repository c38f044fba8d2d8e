package activities_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/activities/acts"
)

// TestActivitiesAreDeclared: the worker registers every exported method of
// Activities under its name, and the workflows call them by the names and
// types package acts declares: the two lists are one, name for name and
// type for type, or a workflow would call an activity no worker has.
func TestActivitiesAreDeclared(t *testing.T) {
	v := reflect.ValueOf(&activities.Activities{})
	declared := map[string]bool{}
	for _, d := range acts.All {
		t.Run(d.Name(), func(t *testing.T) {
			require.False(t, declared[d.Name()], "declared twice")
			declared[d.Name()] = true
			m := v.MethodByName(d.Name())
			require.True(t, m.IsValid(), "acts declares %s; Activities has no such method", d.Name())
			require.Equal(t, d.Func(), m.Type())
		})
	}
	for i := range v.NumMethod() {
		name := v.Type().Method(i).Name
		require.True(t, declared[name], "Activities.%s is registered by the worker but not declared in acts", name)
	}
}
