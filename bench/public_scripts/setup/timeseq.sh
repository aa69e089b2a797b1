python "$PORT_SCRIPTS/time_sequence_prediction/generate_sine_wave.py"
