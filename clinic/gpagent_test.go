package clinic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
)

func TestPathway(t *testing.T) {
	tests := []struct {
		name string
		m    clinic.ManagerView
		want string
	}{
		{"the label", clinic.ManagerView{ManagementLabel: clinic.PathwayRefer}, clinic.PathwayRefer},
		{"a needed referral", clinic.ManagerView{Referral: &clinic.Referral{Needed: true}}, clinic.PathwayRefer},
		{"no referral needed", clinic.ManagerView{Referral: &clinic.Referral{}}, clinic.PathwayManage},
		{"nothing said", clinic.ManagerView{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, tc.m.Pathway()) })
	}
	require.Equal(t, []string{"a"}, clinic.ManagerView{Treatment: []string{"a"}, Management: []string{"b"}}.TreatmentReference())
	require.Equal(t, []string{"b"}, clinic.ManagerView{Management: []string{"b"}}.TreatmentReference())
	require.Equal(t, []string{"ED", "ENT"}, (&clinic.Referral{Destination: "ED", Alternatives: []string{"ENT"}}).Destinations())
	require.Nil(t, (*clinic.Referral)(nil).Destinations())
}

func TestActionNames(t *testing.T) {
	for _, k := range clinic.ActionKinds {
		got, ok := clinic.ActionNamed(k.Name())
		require.True(t, ok, k)
		require.Equal(t, k, got)
		got, ok = clinic.ActionNamed(" " + string(k) + " ")
		require.True(t, ok, k)
		require.Equal(t, k, got)
	}
	require.Equal(t, "test", clinic.RequestTest.Name())
	require.Equal(t, "body_exam", clinic.BodyExam.Name())
	_, ok := clinic.ActionNamed("dance")
	require.False(t, ok)

	a := clinic.ReferAction("Emergency Department", "emergency")
	dest, urg, ok := clinic.ParseReferAction(a)
	require.True(t, ok)
	require.Equal(t, "Emergency Department", dest)
	require.Equal(t, "emergency", urg)
	for _, bad := range []string{"REQUEST_TEST:ecg", "REFER:urgent", "REFER:urgent:", clinic.ManageAction} {
		_, _, ok := clinic.ParseReferAction(bad)
		require.False(t, ok, bad)
	}
}

func TestPersonaLevels(t *testing.T) {
	tests := []struct {
		p                          clinic.Persona
		proficiency, dis, fidelity string
	}{
		{clinic.Persona{}, "advanced", "normal", "high"},
		{clinic.Persona{Language: "limited", Clarity: "confused", Recall: "low"}, "basic", "moderate", "low"},
		{clinic.Persona{Language: "intermediate", Disorientation: "high", Recall: "medium"}, "intermediate", "high", "high"},
		{clinic.Persona{Language: "fluent", Clarity: "confused", Disorientation: "normal"}, "advanced", "normal", "high"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.proficiency, tc.p.Proficiency(), "%+v", tc.p)
		require.Equal(t, tc.dis, tc.p.Disoriented(), "%+v", tc.p)
		require.Equal(t, tc.fidelity, tc.p.Fidelity(), "%+v", tc.p)
	}
}

func TestParseUrgency(t *testing.T) {
	for in, want := range map[string]string{"Urgent": "urgent", " routine ": "routine", "EMERGENCY": "emergency", "Emergent": "emergency"} {
		got, ok := clinic.ParseUrgency(in)
		require.True(t, ok, in)
		require.Equal(t, want, got)
	}
	got, ok := clinic.ParseUrgency("ASAP")
	require.False(t, ok)
	require.Equal(t, "asap", got)
}
