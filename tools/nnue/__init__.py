"""The neural evaluation's data and training: self-play in the process (datagen, a round of files by
datagen_round), the packed games' format (packed_games), training positions (data), the trainer
(train, with its two backends) and the backends' speed (trainer_speed)."""
