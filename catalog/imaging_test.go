package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/catalog"
)

func TestImaging(t *testing.T) {
	tests := []struct {
		modality, region, name string
	}{
		{"CT", "abdomen", "ct abdomen"},
		{"ct", "abdomen and pelvis", "ct abdomen"},
		{"CT", "head", "ct head"},
		{"X-ray", "chest", "chest x ray"},
		{"X-ray", "left knee", "joint x ray"},
		{"ultrasound", "right upper abdomen liver", "abdominal ultrasound"},
		{"ultrasound", "heart", "echocardiogram"},
		{"ultrasound", "left calf veins", "doppler ultrasound leg"},
		{"MRI", "lumbar spine", "mri spine"},
		{"MRI", "abdomen", ""},
		{"PET", "chest", ""},
	}
	for _, tc := range tests {
		t.Run(tc.modality+" "+tc.region, func(t *testing.T) {
			st, ok := catalog.Imaging(tc.modality, tc.region)
			require.Equal(t, tc.name != "", ok)
			require.Equal(t, tc.name, st.Name)
		})
	}
	for _, st := range catalog.ImagingStudies {
		it, m := catalog.Default().Lookup(st.Name)
		require.NotEqual(t, catalog.MatchNone, m, st.Name)
		require.Equal(t, st.Name, it.Name)
		back, ok := catalog.Imaging(st.Modality, st.Region)
		require.True(t, ok, st.Name)
		require.Equal(t, st.Name, back.Name, "a study's own region names it")
	}
}
