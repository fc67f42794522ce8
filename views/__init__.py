"""The page's views: Streamlit page scripts and the modules they share; the only code that imports streamlit."""
