// Stand-in for react-devtools-core, which Ink loads only in development mode.
export default { initialize() {}, connectToDevTools() {} };
