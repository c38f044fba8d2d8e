package textmatch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFirstPerson(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"She reports chest pain on exertion.", "I report chest pain on exertion.", true},
		{"He also denies fever, chills or night sweats.", "I also deny fever, chills or night sweats.", true},
		{"She has had a cough for 6 months and is a never-smoker.", "I have had a cough for 6 months and is a never-smoker.", true},
		{"The patient was awake and alert.", "I was awake and alert.", true},
		{"The patient's father died of a cutaneous melanoma.", "My father died of a cutaneous melanoma.", true},
		{"As witnessed by the patient's parents, there was no cyanosis.", "As witnessed by my parents, there was no cyanosis.", true},
		{"Her mother and sister had similar lesions.", "My mother and sister had similar lesions.", true},
		{"His brother said that he had been drinking.", "His brother said that he had been drinking.", false},
		{"The doctor examined him.", "The doctor examined him.", false},
		{"Medical history included hypertension.", "My medical history included hypertension.", true},
		{"The lesion was present since birth.", "The lesion was present since birth.", true},
		{"You are a 55-year-old woman who has noticed your skin darkening.", "I am a 55-year-old woman who has noticed my skin darkening.", true},
		{"You've been experiencing swelling in your neck for the past 3 weeks.", "I've been experiencing swelling in my neck for the past 3 weeks.", true},
		{"Your doctor did some tests and told you the results were normal.", "My doctor did some tests and told me the results were normal.", true},
		{"Treatment with prednisone improved her rash.", "Treatment with prednisone improved my rash.", true},
		{"Steroids were given to her.", "Steroids were given to me.", true},
		{"", "", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := FirstPerson(tc.in)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.ok, ok)
		})
	}
}
