"""The Gradio leaderboard app: its page, tabs, views and figures, request limits and the Hugging Face Space it is deployed as."""
