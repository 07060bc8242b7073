"""A small package of tools for tools_from_module tests."""

import statetools as st


@st.llm_tool("Search the catalogue")
def search(query: str) -> str:
    return f"hits for {query}"
