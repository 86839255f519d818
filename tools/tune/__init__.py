"""The hand-written evaluation's tuner (texel) with its positions (positions) and weights file
(eval_weights), self-play games through XBoard (selfplay), positions labelled by a stronger engine
(label), and the fit of UCI_ShowWDL's win/draw/loss model (fit_wdl)."""
